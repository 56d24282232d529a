/**
 * The `generate` label with the graph taken from the issue (decision 0015), through the real App: a pasted
 * graph is validated, committed with the git data API onto rpg-forge/issue-<n> and dispatched there; a
 * named path is dispatched on the default branch. GitHub's git objects are a small content-addressed
 * store behind nock, so that a relabel meets what the first label wrote.
 */
import { createHash } from "node:crypto";

import type nock from "nock";
import { describe, expect, it } from "vitest";

import { dispatchInputs } from "../../src/config/dispatch-inputs.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import {
  comments,
  dispatches,
  example,
  github,
  hasConfig,
  hasRole,
  listed,
  listsComments,
  mintsToken,
  OWNER,
  reactsToIssue,
  recorder,
  REPO,
  useApp,
} from "./harness.js";

const app = useApp();
const repoPath = `/repos/${OWNER}/${REPO}`;

/** GitHub's issues.labeled example (issue #1, labeled by Codertocat, a person) with the label `generate` and this body. */
const labeled = (body: string) =>
  example("issues.labeled", (p) => {
    p.label!.name = "generate";
    p.issue.body = body;
  });

const graph = text(rpgDoc([leaf({ id: "stats.mean" }), leaf({ id: "stats.median", deps: ["stats.mean"] })]));
const fenced = (json: string) => `Please generate this package.\n\n\`\`\`json\n${json.trimEnd()}\n\`\`\`\n`;

interface GitCall {
  method: string;
  path: string;
  body: unknown;
}

/**
 * The repository's git objects and refs as the git data API serves them: `main` at a commit holding
 * README.md, plus `refs`; every request is recorded in `calls`. Objects are named by the hash of
 * their content, as git names them, so writing the same content twice gives the same sha.
 */
function gitStore(refs: Record<string, string> = {}) {
  const sha = (value: unknown) => createHash("sha1").update(JSON.stringify(value)).digest("hex");
  const blobs = new Map<string, string>();
  const trees = new Map<string, Record<string, string>>();
  const commits = new Map<string, { tree: string; parents: string[]; message: string }>();
  const baseTree: Record<string, string> = { "README.md": sha("readme") };
  trees.set(sha(baseTree), baseTree);
  const base = sha({ tree: sha(baseTree), parents: [], message: "init" });
  commits.set(base, { tree: sha(baseTree), parents: [], message: "init" });
  const heads = new Map<string, string>([["main", base], ...Object.entries(refs)]);
  const calls: GitCall[] = [];
  const record = (method: string) => (path: string, body: unknown) => calls.push({ method, path, body });
  const commitJson = (id: string) => {
    const c = commits.get(id)!;
    return { sha: id, tree: { sha: c.tree }, parents: c.parents.map((p) => ({ sha: p })), message: c.message };
  };

  const scope = github().persist();
  scope
    .get(new RegExp(`^${repoPath}/git/ref/heads(/|%2F)(.+)$`))
    .reply(function (path) {
      record("GET")(path, undefined);
      const name = decodeURIComponent(path.replace(/^.*?\/git\/ref\/heads(\/|%2F)/, ""));
      const at = heads.get(name);
      return at ? [200, { ref: `refs/heads/${name}`, object: { type: "commit", sha: at } }] : [404, { message: "Not Found" }];
    })
    .get(new RegExp(`^${repoPath}/git/commits/[0-9a-f]{40}$`))
    .reply(function (path) {
      record("GET")(path, undefined);
      return [200, commitJson(path.slice(-40))];
    })
    .post(`${repoPath}/git/blobs`)
    .reply(201, (path, body: { content: string; encoding: string }) => {
      record("POST")(path, body);
      const content = Buffer.from(body.content, body.encoding === "base64" ? "base64" : "utf8").toString("utf8");
      blobs.set(sha(content), content);
      return { sha: sha(content) };
    })
    .post(`${repoPath}/git/trees`)
    .reply(201, (path, body: { base_tree: string; tree: { path: string; sha: string }[] }) => {
      record("POST")(path, body);
      const entries = { ...trees.get(body.base_tree)! };
      for (const entry of body.tree) entries[entry.path] = entry.sha;
      const sorted = Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
      trees.set(sha(sorted), sorted);
      return { sha: sha(sorted) };
    })
    .post(`${repoPath}/git/commits`)
    .reply(201, (path, body: { tree: string; parents: string[]; message: string }) => {
      record("POST")(path, body);
      const id = sha(body);
      commits.set(id, body);
      return commitJson(id);
    })
    .post(`${repoPath}/git/refs`)
    .reply(function (path, raw): nock.ReplyFnResult {
      const body = raw as { ref: string; sha: string };
      record("POST")(path, body);
      const name = body.ref.replace(/^refs\/heads\//, "");
      if (heads.has(name)) return [422, { message: "Reference already exists" }];
      heads.set(name, body.sha);
      return [201, { ref: body.ref, object: { sha: body.sha, type: "commit" } }];
    });
  /** Lets the App move a branch (an interceptor of its own, since every interceptor must be used). */
  const acceptsMoves = () =>
    github()
      .persist()
      .patch(new RegExp(`^${repoPath}/git/refs/heads(/|%2F)(.+)$`))
      .reply(function (path, raw): nock.ReplyFnResult {
        const body = raw as { sha: string; force?: boolean };
        record("PATCH")(path, body);
        const name = decodeURIComponent(path.replace(/^.*?\/git\/refs\/heads(\/|%2F)/, ""));
        heads.set(name, body.sha);
        return [200, { ref: `refs/heads/${name}`, object: { sha: body.sha, type: "commit" } }];
      });

  /** The files of a branch's head commit, with their text. */
  const filesOf = (branch: string): Record<string, string> => {
    const tree = trees.get(commits.get(heads.get(branch)!)!.tree)!;
    return Object.fromEntries(Object.entries(tree).map(([p, s]) => [p, blobs.get(s) ?? `<blob ${s}>`]));
  };
  const writes = () =>
    calls.filter((c) => c.method !== "GET").map((c) => `${c.method} ${decodeURIComponent(c.path.replace(/^.*\/git\//, ""))}`);
  /** A person's commit on main, changing README.md. */
  const advanceMain = () => {
    const tree = { ...trees.get(commits.get(heads.get("main")!)!.tree)!, "README.md": sha("readme, edited") };
    trees.set(sha(tree), tree);
    const commit = { tree: sha(tree), parents: [heads.get("main")!], message: "edit the readme" };
    commits.set(sha(commit), commit);
    heads.set("main", sha(commit));
  };
  return { calls, heads, base, filesOf, writes, acceptsMoves, advanceMain, moveMain: (to: string) => heads.set("main", to) };
}

/** What a dispatch asked for: the ref and the inputs (GitHub's other options aside). */
const sent = (dispatch: ReturnType<typeof recorder>) =>
  dispatch.bodies.map((b) => ({ ref: (b as { ref: string }).ref, inputs: (b as { inputs: unknown }).inputs }));

/** The requests of one accepted label up to the git calls: token (first delivery only), config, permission, 👀. */
function accepted(first = true): void {
  if (first) mintsToken();
  hasConfig();
  hasRole("Codertocat", "write");
  reactsToIssue(1, "eyes");
}

describe("the generate label on an issue holding a graph", () => {
  it("commits the graph as the configured RPG onto rpg-forge/issue-1 from main's head, and dispatches generate there", async () => {
    accepted();
    const git = gitStore();
    listsComments(1, []);
    const dispatch = recorder();
    dispatches(dispatch);

    expect(await app.deliver({ event: "issues", payload: labeled(fenced(graph)) })).toBe(200);

    expect(git.writes()).toEqual(["POST blobs", "POST trees", "POST commits", "POST refs"]);
    const commit = git.calls.find((c) => c.path.endsWith("/git/commits"))!.body as { parents: string[]; message: string };
    expect(commit.parents).toEqual([git.base]);
    expect(commit.message).toBe("rpg-forge: rpg.json from #1");
    expect(git.calls.find((c) => c.path.endsWith("/git/refs"))!.body).toMatchObject({ ref: "refs/heads/rpg-forge/issue-1" });
    expect(git.filesOf("rpg-forge/issue-1")).toEqual({ ...git.filesOf("main"), "rpg.json": graph });
    expect(sent(dispatch)).toEqual([
      {
        ref: "rpg-forge/issue-1",
        inputs: dispatchInputs({ "rpg-path": "rpg.json", mode: "generate", issue: "1", "base-branch": "main" }),
      },
    ]);
  });

  it("relabeled with the same graph commits nothing again and dispatches once more; with another graph, moves the branch", async () => {
    const git = gitStore();
    git.acceptsMoves();
    const dispatch = recorder();
    for (const [i, body] of [fenced(graph), fenced(graph), fenced(graph.replace("stats.median", "stats.mode"))].entries()) {
      accepted(i === 0);
      listsComments(1, []);
      dispatches(dispatch);
      expect(await app.deliver({ event: "issues", payload: labeled(body) })).toBe(200);
      if (i === 1) expect(git.writes()).toEqual(["POST blobs", "POST trees", "POST commits", "POST refs", "POST blobs", "POST trees"]);
    }

    expect(git.writes().filter((w) => /commits|refs/.test(w))).toEqual([
      "POST commits",
      "POST refs",
      "POST commits",
      "PATCH refs/heads/rpg-forge/issue-1",
    ]);
    expect(git.calls.at(-1)!.body).toMatchObject({ force: true });
    expect(git.filesOf("rpg-forge/issue-1")["rpg.json"]).toContain('"stats.mode"');
    expect(dispatch.bodies.map((b) => (b as { ref: string }).ref)).toEqual(Array(3).fill("rpg-forge/issue-1"));
  });

  it("relabeled with the same graph after main moved on, rebuilds the branch on main's new head", async () => {
    const git = gitStore();
    git.acceptsMoves();
    const dispatch = recorder();
    accepted();
    listsComments(1, []);
    dispatches(dispatch);
    await app.deliver({ event: "issues", payload: labeled(fenced(graph)) });
    git.advanceMain();

    accepted(false);
    listsComments(1, []);
    dispatches(dispatch);
    await app.deliver({ event: "issues", payload: labeled(fenced(graph)) });

    expect(git.writes().filter((w) => /commits|refs/.test(w))).toEqual([
      "POST commits",
      "POST refs",
      "POST commits",
      "PATCH refs/heads/rpg-forge/issue-1",
    ]);
    const rebuilt = git.calls.filter((c) => c.path.endsWith("/git/commits") && c.method === "POST")[1]!.body as { parents: string[] };
    expect(rebuilt.parents).toEqual([git.heads.get("main")]);
    expect(git.filesOf("rpg-forge/issue-1")).toEqual({ ...git.filesOf("main"), "rpg.json": graph });
    expect(dispatch.bodies).toHaveLength(2);
  });

  it("when main already holds the same graph (its pull requests merged), points the branch at main and commits nothing", async () => {
    const git = gitStore();
    accepted();
    listsComments(1, []);
    const dispatch = recorder();
    dispatches(dispatch);
    await app.deliver({ event: "issues", payload: labeled(fenced(graph)) });
    const first = git.heads.get("rpg-forge/issue-1")!;
    git.moveMain(first); // e.g. the graph's PRs merged: main now holds the same rpg.json

    accepted(false);
    listsComments(1, []);
    dispatches(dispatch);
    await app.deliver({ event: "issues", payload: labeled(fenced(graph)) });

    // main already holds the graph: the branch is main's head itself, and no commit is made for nothing.
    expect(git.writes().filter((w) => /commits|refs/.test(w))).toEqual(["POST commits", "POST refs"]);
    expect(git.heads.get("rpg-forge/issue-1")).toBe(first);
    expect(dispatch.bodies).toHaveLength(2);
  });

  it("commits the graph where an `rpg:` line beside it says, and dispatches that path", async () => {
    accepted();
    const git = gitStore();
    listsComments(1, []);
    const dispatch = recorder();
    dispatches(dispatch);

    await app.deliver({ event: "issues", payload: labeled(`rpg: graphs/stats.json\n\n${fenced(graph)}`) });

    expect(Object.keys(git.filesOf("rpg-forge/issue-1")).sort()).toEqual(["README.md", "graphs/stats.json"]);
    expect(dispatch.bodies).toMatchObject([{ ref: "rpg-forge/issue-1", inputs: { "rpg-path": "graphs/stats.json" } }]);
  });

  it("with an invalid graph, comments every problem with node id and field, commits and dispatches nothing; fixed, edits the comment", async () => {
    const broken = rpgDoc([
      leaf({ id: "stats.mean", docstring: "" }),
      leaf({ id: "stats.median", deps: ["stats.nowhere"] }),
      leaf({ id: "stats.mode", file: "../escape.py" }),
    ]);
    accepted();
    listsComments(1, []);
    const said = recorder();
    comments(1, said);
    // (No git store and no dispatch interceptor: a commit or a dispatch would be unmatched, and the test would fail.)

    expect(await app.deliver({ event: "issues", payload: labeled(fenced(text(broken))) })).toBe(200);

    const body = (said.bodies[0] as { body: string }).body;
    expect(body).toMatch(/^<!-- rpg-forge:invalid-rpg:issue -->\n### rpg-forge: the RPG in this issue is invalid\n/);
    expect(body).toContain("3 problem(s); nothing was generated.");
    expect(body).toMatch(/`RPG_MISSING_DOCSTRING stats\.mean docstring: [^`]*\(issue #1:\d+:\d+\)`/);
    expect(body).toMatch(/`RPG_DANGLING_REFERENCE stats\.median dependencies\[0\]: [^`]*stats\.nowhere/);
    expect(body).toMatch(/`RPG_PATH_TRAVERSAL stats\.mode file_path: /);
    // Lines are the issue's, as its author edits it (the graph starts on line 4 of the body).
    const line = Number(/RPG_PATH_TRAVERSAL[^`]*\(issue #1:(\d+):/.exec(body)?.[1]);
    expect(fenced(text(broken)).split("\n")[line - 1]).toContain('"file_path": "../escape.py"');

    accepted(false);
    const git = gitStore();
    listsComments(1, [listed(901, 1, body)]);
    const edited = recorder();
    github()
      .patch(`${repoPath}/issues/comments/901`, edited.take)
      .reply(200, listed(901, 1, "edited"));
    const dispatch = recorder();
    dispatches(dispatch);

    await app.deliver({ event: "issues", payload: labeled(fenced(graph)) });

    expect(git.writes()).toContain("POST commits");
    expect((edited.bodies[0] as { body: string }).body).toContain(
      "rpg-forge took the RPG of this issue: `rpg.json` on `rpg-forge/issue-1`",
    );
    expect(dispatch.bodies).toHaveLength(1);
  });

  it("that is not JSON gets the syntax error, with the issue's line", async () => {
    accepted();
    listsComments(1, []);
    const said = recorder();
    comments(1, said);

    await app.deliver({ event: "issues", payload: labeled(fenced('{\n  "nodes": [,]\n}')) });

    expect((said.bodies[0] as { body: string }).body).toContain(
      "`RPG_JSON_SYNTAX: not valid JSON: value expected at line 5, column 13 (issue #1:5:13)`",
    );
  });
});

describe("the generate label on an issue naming a path", () => {
  it("dispatches generate on the default branch for that path, committing nothing", async () => {
    accepted();
    listsComments(1, []);
    const dispatch = recorder();
    dispatches(dispatch);

    await app.deliver({ event: "issues", payload: labeled("Regenerate the report package.\n\nrpg: `graphs/report.json`\n") });

    expect(sent(dispatch)).toEqual([
      { ref: "main", inputs: dispatchInputs({ "rpg-path": "graphs/report.json", mode: "generate", issue: "1" }) },
    ]);
  });

  it("outside the repository, or in .github/, is refused in a comment and nothing is started", async () => {
    accepted();
    listsComments(1, []);
    const said = recorder();
    comments(1, said);

    await app.deliver({ event: "issues", payload: labeled("rpg: ../other-repo/rpg.json") });

    expect((said.bodies[0] as { body: string }).body).toContain(
      "`APP_RPG_PATH_REFUSED: rpg: ../other-repo/rpg.json must be a path inside the repository, without . or .. or empty segments`",
    );
  });
});
