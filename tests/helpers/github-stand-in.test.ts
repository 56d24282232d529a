import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Octokit } from "@octokit/rest";
import { Ajv, type ValidateFunction } from "ajv";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "./github-stand-in.js";

let standIn: GitHubStandIn;
let gh: Octokit;
const target = { owner: "octo-org", repo: "stats" };
// Octokit logs every failed request; these tests provoke many on purpose.
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

beforeEach(async () => {
  standIn = await startGitHubStandIn();
  gh = new Octokit({ auth: "test-token", baseUrl: standIn.url, log: quiet });
});
afterEach(async () => {
  await standIn.close();
});

/** What Octokit's RequestError carries that these tests read. */
interface HttpFailure {
  status: number;
  response?: { data: unknown };
}

/** The HTTP error a call rejects with; fails the test if it succeeds or fails otherwise. */
async function requestError(promise: Promise<unknown>): Promise<HttpFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ name: "HttpError", status: expect.any(Number) });
  return error as HttpFailure;
}

const openPull = (head: string, extra: { base?: string; title?: string; body?: string } = {}) =>
  gh.rest.pulls.create({
    ...target,
    head,
    base: extra.base ?? "main",
    title: extra.title ?? `Generate ${head}`,
    body: extra.body ?? "first body",
  });

describe("pull requests", () => {
  it("opens a pull request once, finds it by owner:branch and edits it in place", async () => {
    const created = await openPull("rpg/statkit/core");
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      number: 1,
      state: "open",
      title: "Generate rpg/statkit/core",
      body: "first body",
      html_url: "https://github.com/octo-org/stats/pull/1",
      url: `${standIn.url}/repos/octo-org/stats/pulls/1`,
      head: { ref: "rpg/statkit/core", label: "octo-org:rpg/statkit/core" },
      base: { ref: "main" },
      user: { login: "github-actions[bot]", type: "Bot" },
    });

    const found = await gh.rest.pulls.list({ ...target, head: "octo-org:rpg/statkit/core", state: "open" });
    expect(found.data.map((p) => p.number)).toEqual([1]);
    await gh.rest.pulls.update({ ...target, pull_number: found.data[0]!.number, body: "second body" });

    expect(standIn.pulls).toHaveLength(1);
    expect(standIn.pulls[0]).toMatchObject({ number: 1, body: "second body", title: "Generate rpg/statkit/core" });
    const fetched = await gh.rest.pulls.get({ ...target, pull_number: 1 });
    expect(fetched.data.body).toBe("second body");
    expect(standIn.violations).toEqual([]);
  });

  it("answers a second pull request for the same head and base with GitHub's 422", async () => {
    await openPull("rpg/statkit/core");
    const error = await requestError(openPull("rpg/statkit/core"));
    expect(error.status).toBe(422);
    expect(error.response?.data).toEqual({
      message: "Validation Failed",
      errors: [{ resource: "PullRequest", code: "custom", message: "A pull request already exists for octo-org:rpg/statkit/core." }],
      documentation_url: "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
      status: "422",
    });
    expect(standIn.pulls).toHaveLength(1);
    expect(standIn.violations).toEqual([]); // a well-formed request GitHub refuses is not a violation
  });

  it("ignores a head filter without the owner prefix, as GitHub does", async () => {
    await openPull("rpg/a");
    await openPull("rpg/b");
    const bare = await gh.rest.pulls.list({ ...target, head: "rpg/a" });
    const prefixed = await gh.rest.pulls.list({ ...target, head: "octo-org:rpg/a" });
    const otherOwner = await gh.rest.pulls.list({ ...target, head: "someone-else:rpg/a" });
    expect(bare.data.map((p) => p.head.ref)).toEqual(["rpg/b", "rpg/a"]); // newest first
    expect(prefixed.data.map((p) => p.head.ref)).toEqual(["rpg/a"]);
    expect(otherOwner.data).toEqual([]);
  });

  it("filters by state and base, and a closed pull request can be reopened only without an open twin", async () => {
    await openPull("rpg/a");
    await openPull("rpg/b", { base: "develop" });
    await gh.rest.pulls.update({ ...target, pull_number: 1, state: "closed" });
    const open = await gh.rest.pulls.list({ ...target });
    const closed = await gh.rest.pulls.list({ ...target, state: "closed" });
    const all = await gh.rest.pulls.list({ ...target, state: "all", base: "develop" });
    expect(open.data.map((p) => p.number)).toEqual([2]);
    expect(closed.data.map((p) => [p.number, p.state, typeof p.closed_at])).toEqual([[1, "closed", "string"]]);
    expect(all.data.map((p) => p.number)).toEqual([2]);

    await openPull("rpg/a"); // allowed: #1 is closed
    const error = await requestError(gh.rest.pulls.update({ ...target, pull_number: 1, state: "open" }));
    expect(error.status).toBe(422);
    expect(standIn.pulls.map((p) => [p.number, p.state])).toEqual([
      [1, "closed"],
      [2, "open"],
      [3, "open"],
    ]);
  });

  it("shares one number counter between issues and pull requests", async () => {
    expect(standIn.addIssue({ title: "Generate statkit", labels: ["rpg-forge"] })).toBe(1);
    expect((await openPull("rpg/a")).data.number).toBe(2);
    expect(standIn.addIssue({ title: "another" })).toBe(3);
  });

  it("keeps updated_at when an edit changes nothing, and moves it when one does", async () => {
    let tick = Date.parse("2025-03-01T10:00:00Z");
    await standIn.close();
    standIn = await startGitHubStandIn({ now: () => new Date((tick += 60_000)) });
    gh = new Octokit({ auth: "test-token", baseUrl: standIn.url, log: quiet });
    const created = await openPull("rpg/a", { body: "same" });
    expect(created.data.created_at).toBe("2025-03-01T10:01:00Z");
    const unchanged = await gh.rest.pulls.update({ ...target, pull_number: 1, body: "same" });
    expect(unchanged.data.updated_at).toBe("2025-03-01T10:01:00Z");
    const changed = await gh.rest.pulls.update({ ...target, pull_number: 1, body: "new" });
    expect(changed.data.updated_at).toBe("2025-03-01T10:02:00Z");
  });
});

describe("issue comments", () => {
  it("creates, edits in place and deletes a comment on a pull request", async () => {
    await openPull("rpg/a");
    const created = await gh.rest.issues.createComment({ ...target, issue_number: 1, body: "<!-- rpg-forge:report -->\n1 of 2" });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      body: "<!-- rpg-forge:report -->\n1 of 2",
      html_url: `https://github.com/octo-org/stats/pull/1#issuecomment-${created.data.id}`,
      issue_url: `${standIn.url}/repos/octo-org/stats/issues/1`,
      user: { login: "github-actions[bot]", type: "Bot" },
    });
    // Ids come from their own range, so code mixing up comment_id and issue_number gets a 404.
    expect(created.data.id).not.toBe(1);

    await gh.rest.issues.updateComment({ ...target, comment_id: created.data.id, body: "<!-- rpg-forge:report -->\n2 of 2" });
    expect(standIn.comments.map((c) => [c.id, c.issue_number, c.body])).toEqual([
      [created.data.id, 1, "<!-- rpg-forge:report -->\n2 of 2"],
    ]);
    expect((await gh.rest.pulls.get({ ...target, pull_number: 1 })).data.comments).toBe(1);

    const deleted = await gh.rest.issues.deleteComment({ ...target, comment_id: created.data.id });
    expect(deleted.status).toBe(204);
    expect(standIn.comments).toEqual([]);
    expect((await requestError(gh.rest.issues.getComment({ ...target, comment_id: created.data.id }))).status).toBe(404);
    expect(standIn.violations).toEqual([]);
  });

  it("comments on a pre-created issue and answers 404 for an issue that does not exist", async () => {
    const issue = standIn.addIssue({ title: "Generate statkit" });
    await gh.rest.issues.createComment({ ...target, issue_number: issue, body: "queued" });
    expect(standIn.comments[0]).toMatchObject({ issue_number: issue, html_url: expect.stringContaining(`/issues/${issue}#issuecomment-`) });
    expect((await requestError(gh.rest.issues.createComment({ ...target, issue_number: 99, body: "x" }))).status).toBe(404);
    expect(() => standIn.addComment({ issue_number: 99, body: "x" })).toThrow("no issue or pull request #99");
  });

  it("pages comments with Link headers that octokit.paginate follows", async () => {
    const issue = standIn.addIssue({ title: "busy thread" });
    for (let i = 1; i <= 5; i++)
      standIn.addComment({ issue_number: issue, body: `comment ${i}`, user: { login: "a-person", id: 7, type: "User" } });

    const first = await gh.rest.issues.listComments({ ...target, issue_number: issue, per_page: 2 });
    const page = (rel: string) => new RegExp(`<([^>]+)>; rel="${rel}"`).exec(first.headers.link ?? "")?.[1];
    expect(new URL(page("next")!).searchParams.get("page")).toBe("2");
    expect(new URL(page("last")!).searchParams.get("page")).toBe("3");
    expect(new URL(page("next")!).searchParams.get("per_page")).toBe("2");
    expect(page("prev")).toBeUndefined();

    const all = await gh.paginate(gh.rest.issues.listComments, { ...target, issue_number: issue, per_page: 2 });
    expect(all.map((c) => c.body)).toEqual(["comment 1", "comment 2", "comment 3", "comment 4", "comment 5"]);
    expect(all.every((c) => c.user?.login === "a-person" && c.author_association === "MEMBER")).toBe(true);
    const listed = standIn.requests.filter((r) => r.operationId === "issues/list-comments");
    expect(listed.map((r) => r.query.page)).toEqual([undefined, undefined, "2", "3"]);
    expect(standIn.violations).toEqual([]);
  });
});

describe("checking requests against GitHub's REST description", () => {
  // Octokit's route types would refuse these requests at compile time; code that builds a route string
  // or casts gets no such help, and that is what the stand-in is for.
  const sendUnchecked = (route: string, parameters: Record<string, unknown>) => gh.request(route, parameters);

  it("reports a pull request without head as a violation and answers 422", async () => {
    const error = await requestError(sendUnchecked("POST /repos/{owner}/{repo}/pulls", { ...target, title: "t", base: "main" }));
    expect(error.status).toBe(422);
    expect(standIn.violations).toEqual(['POST /repos/octo-org/stats/pulls: body field "head" is required by pulls/create']);
    expect(standIn.pulls).toEqual([]);
  });

  it("reports an unknown path as a violation and answers 404", async () => {
    const error = await requestError(gh.request("GET /repos/o/r/not-a-thing"));
    expect(error.status).toBe(404);
    expect(standIn.violations).toEqual(["GET /repos/o/r/not-a-thing: no such operation in GitHub's REST description"]);
    expect(standIn.requests.at(-1)).toMatchObject({ method: "GET", path: "/repos/o/r/not-a-thing", operationId: undefined });
  });

  it("reports a method the path does not have", async () => {
    await requestError(gh.request("PUT /repos/{owner}/{repo}/pulls", { ...target }));
    expect(standIn.violations).toEqual(["PUT /repos/octo-org/stats/pulls: no such operation in GitHub's REST description"]);
  });

  it("reports undeclared query parameters, mistyped values and unknown body fields", async () => {
    await requestError(sendUnchecked("GET /repos/{owner}/{repo}/pulls", { ...target, branch: "rpg/a", state: "merged" }));
    await requestError(
      sendUnchecked("POST /repos/{owner}/{repo}/pulls", { ...target, head: "rpg/a", base: "main", title: "t", draft: "yes" }),
    );
    await requestError(
      sendUnchecked("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { ...target, comment_id: 1, body: "x", bdy: "y" }),
    );
    await requestError(sendUnchecked("GET /repos/{owner}/{repo}/pulls/{pull_number}", { ...target, pull_number: "first" }));
    expect(standIn.violations).toEqual([
      'GET /repos/octo-org/stats/pulls: query parameter "state" is "merged", expected one of open, closed, all (pulls/list)',
      'GET /repos/octo-org/stats/pulls: query parameter "branch" is not a parameter of pulls/list',
      'POST /repos/octo-org/stats/pulls: body field "draft" is "yes", expected boolean (pulls/create)',
      'PATCH /repos/octo-org/stats/issues/comments/1: body field "bdy" is not a field of issues/update-comment',
      'GET /repos/octo-org/stats/pulls/first: path parameter "pull_number" is "first", expected an integer (pulls/get)',
    ]);
    expect(standIn.pulls).toEqual([]);
  });

  it("prefers a literal path segment over a parameter when both match", async () => {
    await gh.rest.issues.listCommentsForRepo({ ...target }).catch(() => undefined);
    expect(standIn.requests.at(-1)?.operationId).toBe("issues/list-comments-for-repo"); // not issues/get with "comments" as number
    expect(standIn.violations).toEqual([]);
  });

  it("answers a real but unimplemented operation with 404 and records it without a violation", async () => {
    const error = await requestError(gh.rest.issues.get({ ...target, issue_number: 1 }));
    expect(error.status).toBe(404);
    expect(standIn.requests.at(-1)?.operationId).toBe("issues/get");
    expect(standIn.violations).toEqual([]);
  });

  it("answers 404 for another repository, as GitHub does for one the token cannot see", async () => {
    expect((await requestError(gh.rest.pulls.list({ owner: "octo-org", repo: "other" }))).status).toBe(404);
    expect((await gh.rest.pulls.list({ owner: "Octo-Org", repo: "Stats" })).status).toBe(200); // names are case-insensitive
    expect(standIn.violations).toEqual([]);
  });
});

describe("the HTTP surface", () => {
  it("requires an authorization header, token or Bearer, and records it", async () => {
    const anonymous = new Octokit({ baseUrl: standIn.url, log: quiet });
    expect((await requestError(anonymous.rest.repos.get({ ...target }))).status).toBe(401);
    const bearer = await fetch(`${standIn.url}/repos/octo-org/stats`, { headers: { authorization: "Bearer abc" } });
    expect(bearer.status).toBe(200);
    await gh.rest.repos.get({ ...target });
    expect(standIn.requests.map((r) => r.headers.authorization)).toEqual([undefined, "Bearer abc", "token test-token"]);
  });

  it("answers JSON with GitHub's request id header, and a repository whose default branch is main", async () => {
    const repo = await gh.rest.repos.get({ ...target });
    expect(repo.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(repo.headers["x-github-request-id"]).toMatch(/\S/);
    expect(repo.data).toMatchObject({ name: "stats", full_name: "octo-org/stats", default_branch: "main", owner: { login: "octo-org" } });
  });

  it("records method, path, query, body and operation of every request", async () => {
    await openPull("rpg/a", { title: "T", body: "B" });
    await gh.rest.pulls.list({ ...target, head: "octo-org:rpg/a", per_page: 100 });
    expect(standIn.requests.map(({ method, path, query, body, operationId }) => ({ method, path, query, body, operationId }))).toEqual([
      {
        method: "POST",
        path: "/repos/octo-org/stats/pulls",
        query: {},
        body: { head: "rpg/a", base: "main", title: "T", body: "B" },
        operationId: "pulls/create",
      },
      {
        method: "GET",
        path: "/repos/octo-org/stats/pulls",
        query: { head: "octo-org:rpg/a", per_page: "100" },
        body: undefined,
        operationId: "pulls/list",
      },
    ]);
  });

  it("reports a body that is not JSON and answers 400 like GitHub", async () => {
    const reply = await fetch(`${standIn.url}/repos/octo-org/stats/pulls`, {
      method: "POST",
      headers: { authorization: "token t" },
      body: "{oops",
    });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ message: "Problems parsing JSON" });
    expect(standIn.violations).toEqual(["POST /repos/octo-org/stats/pulls: the body is not JSON"]);
  });
});

describe("against the published description itself", () => {
  interface Spec {
    paths: Record<
      string,
      Record<
        string,
        { operationId?: string; parameters?: Array<{ $ref?: string; name?: string; in?: string; schema?: { type?: string } }> }
      >
    >;
    components: { schemas: Record<string, unknown>; parameters: Record<string, { name: string; in: string; schema?: { type?: string } }> };
  }
  let spec: Spec;
  let schemaFor: (name: string) => ValidateFunction;
  beforeAll(async () => {
    const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
    spec = JSON.parse(await readFile(file, "utf8")) as Spec;
    // OpenAPI 3.0 schemas: Ajv understands `nullable`; formats and extension keywords are not checked.
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ $id: "gh", components: { schemas: spec.components.schemas } });
    schemaFor = (name) => ajv.getSchema(`gh#/components/schemas/${name}`)!;
  });
  const expectShape = (name: string, data: unknown) => {
    const validate = schemaFor(name);
    validate(data);
    expect(validate.errors ?? [], name).toEqual([]);
  };

  it("answers with the published response schemas of every implemented operation", async () => {
    const created = await openPull("rpg/a");
    expectShape("pull-request", created.data);
    expectShape("pull-request", (await gh.rest.pulls.get({ ...target, pull_number: 1 })).data);
    expectShape("pull-request", (await gh.rest.pulls.update({ ...target, pull_number: 1, state: "closed" })).data);
    const listed = await gh.rest.pulls.list({ ...target, state: "all" });
    expect(listed.data).toHaveLength(1);
    expectShape("pull-request-simple", listed.data[0]);
    expect(listed.data[0]).not.toHaveProperty("mergeable"); // the list answers the simple shape

    const comment = await gh.rest.issues.createComment({ ...target, issue_number: 1, body: "hi" });
    expectShape("issue-comment", comment.data);
    expectShape("issue-comment", (await gh.rest.issues.updateComment({ ...target, comment_id: comment.data.id, body: "ho" })).data);
    expectShape("issue-comment", (await gh.rest.issues.getComment({ ...target, comment_id: comment.data.id })).data);
    expectShape("issue-comment", (await gh.rest.issues.listComments({ ...target, issue_number: 1 })).data[0]);
    expectShape("full-repository", (await gh.rest.repos.get({ ...target })).data);
    expect(standIn.violations).toEqual([]);
  });

  it("checks shapes with a validator that does reject a wrong one", () => {
    expect(schemaFor("issue-comment")({ id: "1" })).toBe(false);
    expect(schemaFor("pull-request-simple")({})).toBe(false);
  });

  it("routes a request for every operation of the description to that operation", async () => {
    const expected = new Map<string, string>();
    for (const [template, item] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!operation.operationId) continue;
        const parameters = (operation.parameters ?? []).map((p) => (p.$ref ? spec.components.parameters[p.$ref.split("/").pop()!]! : p));
        const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
          const declared = parameters.find((p) => p.in === "path" && p.name === name);
          return declared?.schema?.type === "integer" ? "12" : `some-${name}`;
        });
        expected.set(`${method.toUpperCase()} ${path}`, operation.operationId);
      }
    }
    const calls = [...expected.keys()];
    for (let i = 0; i < calls.length; i += 50) {
      await Promise.all(
        calls.slice(i, i + 50).map((call) => {
          const [method, path] = call.split(" ");
          return fetch(standIn.url + path, { method, headers: { authorization: "token t" } }).then((r) => r.arrayBuffer());
        }),
      );
    }
    const routed = new Map(standIn.requests.map((r) => [`${r.method} ${r.path}`, r.operationId]));
    const misrouted = calls.filter((call) => routed.get(call) !== expected.get(call)).map((call) => `${call} went to ${routed.get(call)}`);
    expect(standIn.requests.length).toBeGreaterThan(1000);
    expect(misrouted).toEqual([]);
  });
});
