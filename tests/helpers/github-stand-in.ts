import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server on 127.0.0.1 standing in for api.github.com, so tests drive the real
 * `@octokit/rest` client (or the Action as a child process with GITHUB_API_URL) over a socket.
 * It keeps pull requests, issues and comments in memory, and checks every request against
 * GitHub's published REST description (`@octokit/openapi`), so a request GitHub would reject
 * fails the test here instead of in production. Response shapes follow the description's
 * response schemas; tests/helpers/github-stand-in.test.ts validates them against it.
 */

export interface StandInUser {
  login: string;
  id: number;
  type: "User" | "Bot" | "Organization";
}

export interface StandInRequest {
  method: string;
  /** The path as sent, without the query string. */
  path: string;
  query: Record<string, string>;
  /** The parsed JSON body; undefined when none was sent. */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** The operation of GitHub's REST description the request matched, e.g. "pulls/create". */
  operationId?: string;
}

interface BranchRef {
  ref: string;
  sha: string;
  label: string;
}

export interface StoredPull {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  draft: boolean;
  head: BranchRef;
  base: BranchRef;
  html_url: string;
  url: string;
  user: StandInUser;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

export interface StoredIssue {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  labels: string[];
  state: "open" | "closed";
}

export interface StoredComment {
  id: number;
  node_id: string;
  /** The issue or pull request number the comment sits on. */
  issue_number: number;
  body: string;
  html_url: string;
  url: string;
  issue_url: string;
  user: StandInUser;
  created_at: string;
  updated_at: string;
}

export interface GitHubStandInOptions {
  /** Default "octo-org". Requests for any other repository get 404. */
  owner?: string;
  /** Default "stats". */
  repo?: string;
  /** Who the token belongs to: author of created PRs and comments. Default github-actions[bot], as with GITHUB_TOKEN. */
  actor?: StandInUser;
  /** The clock for created_at/updated_at. Default the real one. */
  now?: () => Date;
}

export interface GitHubStandIn {
  /** The API root, for GITHUB_API_URL and Octokit's baseUrl. */
  url: string;
  owner: string;
  repo: string;
  /** Every request received, in order. */
  requests: StandInRequest[];
  /** Requests that do not match GitHub's REST description; a test should expect this to be empty. */
  violations: string[];
  /** Live state: tests may edit it, e.g. close a PR as a person would. */
  pulls: StoredPull[];
  issues: StoredIssue[];
  comments: StoredComment[];
  /** Opens an issue and returns its number (shared with pull requests, as on GitHub). */
  addIssue(issue: { title: string; body?: string; labels?: string[] }): number;
  /** Adds a comment written by someone else than the actor, e.g. a person quoting the bot's marker. */
  addComment(comment: { issue_number: number; body: string; user?: StandInUser }): StoredComment;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// GitHub's REST description, reduced to what validation needs

interface SimpleSchema {
  type?: string;
  enum?: unknown[];
  nullable?: boolean;
}

interface ParameterSpec {
  name: string;
  in: string;
  required: boolean;
  schema: SimpleSchema;
}

interface BodySpec {
  required: boolean;
  /** Undefined when the body is not JSON or its schema is a oneOf/anyOf: those are not checked. */
  fields?: { required: string[]; properties: Record<string, SimpleSchema>; additional: boolean };
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** The template's parameter names, in the order of the pattern's groups. */
  names: string[];
  /** One digit per segment (2 literal, 1 mixed like "{base}...{head}", 0 parameter): the highest is the most specific template. */
  specificity: string;
  operationId: string;
  docsUrl: string;
  parameters: ParameterSpec[];
  body?: BodySpec;
}

interface JsonObject {
  [key: string]: unknown;
}

// The plain file parses in about a quarter of the deref variant's time (13 MB against 73 MB), and only
// parameters and request bodies need their $refs followed. The reduced index is kept; the spec is dropped.
let operations: Promise<Operation[]> | undefined;

function loadOperations(): Promise<Operation[]> {
  operations ??= (async () => {
    const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
    const spec = JSON.parse(await readFile(file, "utf8")) as JsonObject;
    const deref = (node: unknown): JsonObject => {
      let current = node as JsonObject;
      while (typeof current.$ref === "string") {
        current = current.$ref
          .slice(2)
          .split("/")
          .reduce<JsonObject>((at, key) => at[key.replaceAll("~1", "/").replaceAll("~0", "~")] as JsonObject, spec);
      }
      return current;
    };
    const simple = (node: unknown): SimpleSchema => {
      const schema = deref(node);
      return {
        type: typeof schema.type === "string" ? schema.type : undefined,
        enum: schema.enum as unknown[],
        nullable: schema.nullable === true,
      };
    };
    const result: Operation[] = [];
    for (const [template, item] of Object.entries(spec.paths as Record<string, JsonObject>)) {
      const segments = template.split("/");
      // Names like {enterprise-team} are not valid group names, so groups are positional.
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const pattern = new RegExp(
        `^${segments.map((s) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "([^/]+)")).join("/")}$`,
      );
      const specificity = segments.map((s) => (!s.includes("{") ? "2" : /^\{[^}]+\}$/.test(s) ? "0" : "1")).join("");
      for (const [method, raw] of Object.entries(item)) {
        const op = raw as JsonObject;
        if (typeof op.operationId !== "string") continue;
        const parameters = ((op.parameters as unknown[] | undefined) ?? []).map((p) => {
          const parameter = deref(p);
          return {
            name: String(parameter.name),
            in: String(parameter.in),
            required: parameter.required === true,
            schema: simple(parameter.schema),
          };
        });
        let body: BodySpec | undefined;
        if (op.requestBody) {
          const requestBody = deref(op.requestBody);
          const json = (requestBody.content as Record<string, JsonObject> | undefined)?.["application/json"];
          const schema = json?.schema ? deref(json.schema) : undefined;
          const checkable = schema && schema.type === "object" && !schema.oneOf && !schema.anyOf && !schema.allOf;
          body = {
            required: requestBody.required === true,
            fields: checkable
              ? {
                  required: (schema.required as string[] | undefined) ?? [],
                  properties: Object.fromEntries(
                    Object.entries((schema.properties as JsonObject | undefined) ?? {}).map(([k, v]) => [k, simple(v)]),
                  ),
                  additional: schema.properties === undefined || Boolean(schema.additionalProperties),
                }
              : undefined,
          };
        }
        const docsUrl = String((op.externalDocs as JsonObject | undefined)?.url ?? "https://docs.github.com/rest");
        result.push({
          method: method.toUpperCase(),
          template,
          pattern,
          names,
          specificity,
          operationId: op.operationId,
          docsUrl,
          parameters,
          body,
        });
      }
    }
    return result;
  })();
  return operations;
}

interface Match {
  operation?: Operation;
  params: Record<string, string>;
  problems: string[];
}

/** Finds the operation a request is for and lists every way the request departs from its description. */
function matchOperation(all: Operation[], method: string, path: string, query: Record<string, string>, body: unknown): Match {
  let best: { operation: Operation; values: string[] } | undefined;
  for (const operation of all) {
    if (operation.method !== method) continue;
    const found = operation.pattern.exec(path);
    if (found && (!best || operation.specificity > best.operation.specificity)) best = { operation, values: found.slice(1) };
  }
  if (!best) return { params: {}, problems: ["no such operation in GitHub's REST description"] };
  const { operation, values } = best;
  const id = operation.operationId;
  const params = Object.fromEntries(operation.names.map((name, i) => [name, safeDecode(values[i]!)]));
  const problems: string[] = [];
  for (const p of operation.parameters) {
    const value = p.in === "path" ? params[p.name] : p.in === "query" ? query[p.name] : undefined;
    if (value === undefined) {
      if (p.in === "query" && p.required) problems.push(`query parameter "${p.name}" is required by ${id}`);
      continue;
    }
    const problem = stringProblem(value, p.schema);
    if (problem) problems.push(`${p.in} parameter "${p.name}" ${problem} (${id})`);
  }
  for (const name of Object.keys(query)) {
    if (!operation.parameters.some((p) => p.in === "query" && p.name === name))
      problems.push(`query parameter "${name}" is not a parameter of ${id}`);
  }
  if (operation.body) {
    const { required, fields } = operation.body;
    if (body === undefined) {
      if (required) problems.push(`a JSON body is required by ${id}`);
    } else if (fields) {
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        problems.push(`the body must be a JSON object for ${id}`);
      } else {
        const record = body as JsonObject;
        for (const name of fields.required) if (!(name in record)) problems.push(`body field "${name}" is required by ${id}`);
        for (const [name, value] of Object.entries(record)) {
          const schema = fields.properties[name];
          if (!schema) {
            if (!fields.additional) problems.push(`body field "${name}" is not a field of ${id}`);
            continue;
          }
          const problem = valueProblem(value, schema);
          if (problem) problems.push(`body field "${name}" ${problem} (${id})`);
        }
      }
    }
  } else if (body !== undefined) {
    problems.push(`${id} takes no request body`);
  }
  return { operation, params, problems };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray "%" reaches the handler as sent, like any other unknown name
  }
}

const SIMPLE_TYPES = new Set(["string", "integer", "number", "boolean"]);

function valueProblem(value: unknown, schema: SimpleSchema): string | undefined {
  if (!schema.type || !SIMPLE_TYPES.has(schema.type)) return undefined;
  if (value === null) return schema.nullable ? undefined : `is null, expected ${schema.type}`;
  const ok =
    schema.type === "integer"
      ? Number.isInteger(value)
      : schema.type === "number"
        ? typeof value === "number"
        : typeof value === schema.type;
  if (!ok) return `is ${JSON.stringify(value)}, expected ${schema.type}`;
  if (schema.enum && !schema.enum.includes(value)) return `is ${JSON.stringify(value)}, expected one of ${schema.enum.join(", ")}`;
  return undefined;
}

/** Path and query values arrive as text; checks the text spells a value of the declared type. */
function stringProblem(value: string, schema: SimpleSchema): string | undefined {
  if (schema.type === "integer" && !/^-?\d+$/.test(value)) return `is "${value}", expected an integer`;
  if (schema.type === "number" && !Number.isFinite(Number(value))) return `is "${value}", expected a number`;
  if (schema.type === "boolean" && value !== "true" && value !== "false") return `is "${value}", expected true or false`;
  if (schema.enum && !schema.enum.map(String).includes(value)) return `is "${value}", expected one of ${schema.enum.join(", ")}`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The server

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Call {
  params: Record<string, string>;
  query: Record<string, string>;
  body: JsonObject;
  operation: Operation;
  path: string;
}

const DOCS = "https://docs.github.com/rest";
const GITHUB_ACTIONS_BOT: StandInUser = { login: "github-actions[bot]", id: 41898282, type: "Bot" };

const notFound = (docsUrl = DOCS): Reply => ({ status: 404, body: { message: "Not Found", documentation_url: docsUrl, status: "404" } });
const validationFailed = (operation: Operation, errors: JsonObject[]): Reply => ({
  status: 422,
  body: { message: "Validation Failed", errors, documentation_url: operation.docsUrl, status: "422" },
});

/** Starts the stand-in; the first call in a process also loads and indexes GitHub's REST description (about 0.2 s). */
export async function startGitHubStandIn(options: GitHubStandInOptions = {}): Promise<GitHubStandIn> {
  const all = await loadOperations();
  const owner = options.owner ?? "octo-org";
  const repo = options.repo ?? "stats";
  const actor = options.actor ?? GITHUB_ACTIONS_BOT;
  const clock = options.now ?? (() => new Date());
  // GitHub's timestamps carry no milliseconds.
  const now = () =>
    clock()
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z");
  const requests: StandInRequest[] = [];
  const violations: string[] = [];
  const pulls: StoredPull[] = [];
  const issues: StoredIssue[] = [];
  const comments: StoredComment[] = [];
  let lastNumber = 0;
  let lastCommentId = 2_000_000_000;
  let served = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const method = req.method ?? "GET";
      const url = new URL(req.url ?? "/", "http://stand-in");
      const query = Object.fromEntries(url.searchParams);
      const text = Buffer.concat(chunks).toString("utf8");
      const recorded: StandInRequest = { method, path: url.pathname, query, body: undefined, headers: req.headers };
      requests.push(recorded);
      const where = `${method} ${url.pathname}`;
      try {
        recorded.body = text.length ? (JSON.parse(text) as unknown) : undefined;
      } catch {
        violations.push(`${where}: the body is not JSON`);
        return send(res, { status: 400, body: { message: "Problems parsing JSON", documentation_url: DOCS, status: "400" } });
      }
      const match = matchOperation(all, method, url.pathname, query, recorded.body);
      recorded.operationId = match.operation?.operationId;
      violations.push(...match.problems.map((p) => `${where}: ${p}`));
      if (!match.operation) return send(res, notFound());
      if (match.problems.length) {
        const message = `Invalid request.\n\n${match.problems.join("\n")}`;
        return send(res, { status: 422, body: { message, documentation_url: match.operation.docsUrl, status: "422" } });
      }
      if (!/^(token|bearer) \S+$/i.test(req.headers.authorization ?? "")) {
        return send(res, { status: 401, body: { message: "Requires authentication", documentation_url: DOCS, status: "401" } });
      }
      const handler = handlers[match.operation.operationId];
      const sameRepo = match.params.owner?.toLowerCase() === owner.toLowerCase() && match.params.repo?.toLowerCase() === repo.toLowerCase();
      if (!handler || !sameRepo) return send(res, notFound(match.operation.docsUrl));
      const body = (recorded.body ?? {}) as JsonObject;
      try {
        send(res, handler({ params: match.params, query, body, operation: match.operation, path: url.pathname }));
      } catch (error) {
        // A bug in the stand-in must fail the request, not take the test worker down with an uncaught exception.
        send(res, { status: 500, body: { message: `stand-in handler threw: ${(error as Error).message}`, status: "500" } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function send(res: ServerResponse, reply: Reply): void {
    served++;
    const headers: Record<string, string> = {
      "x-github-request-id": `5EA7:${served.toString(16).toUpperCase().padStart(6, "0")}:STAND:IN`,
      "x-github-api-version-selected": "2022-11-28",
      "x-ratelimit-limit": "5000",
      "x-ratelimit-remaining": "4999",
      "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
      "x-ratelimit-used": "1",
      "x-ratelimit-resource": "core",
      ...reply.headers,
    };
    // GitHub sends a 204 with neither body nor content type.
    if (reply.status === 204) {
      res.writeHead(204, headers);
      return void res.end();
    }
    res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8", ...headers });
    res.end(JSON.stringify(reply.body ?? {}));
  }

  // ---- rendering: every field the response schemas require, see the shape test

  const repoApi = `${api}/repos/${owner}/${repo}`;
  const repoHtml = `https://github.com/${owner}/${repo}`;
  const ownerUser: StandInUser = { login: owner, id: 9_000_001, type: "Organization" };
  const userJson = (u: StandInUser) => {
    const at = `${api}/users/${encodeURIComponent(u.login)}`;
    const html = u.type === "Bot" ? `https://github.com/apps/${u.login.replace(/\[bot\]$/, "")}` : `https://github.com/${u.login}`;
    return {
      login: u.login,
      id: u.id,
      node_id: legacyNodeId(u.type === "Bot" ? "Bot" : u.type === "Organization" ? "Organization" : "User", u.id),
      avatar_url: `https://avatars.githubusercontent.com/u/${u.id}?v=4`,
      gravatar_id: "",
      url: at,
      html_url: html,
      followers_url: `${at}/followers`,
      following_url: `${at}/following{/other_user}`,
      gists_url: `${at}/gists{/gist_id}`,
      starred_url: `${at}/starred{/owner}{/repo}`,
      subscriptions_url: `${at}/subscriptions`,
      organizations_url: `${at}/orgs`,
      repos_url: `${at}/repos`,
      events_url: `${at}/events{/privacy}`,
      received_events_url: `${at}/received_events`,
      type: u.type,
      user_view_type: "public",
      site_admin: false,
    };
  };
  const REPO_LINKS: Record<string, string> = {
    archive_url: "/{archive_format}{/ref}",
    assignees_url: "/assignees{/user}",
    blobs_url: "/git/blobs{/sha}",
    branches_url: "/branches{/branch}",
    collaborators_url: "/collaborators{/collaborator}",
    comments_url: "/comments{/number}",
    commits_url: "/commits{/sha}",
    compare_url: "/compare/{base}...{head}",
    contents_url: "/contents/{+path}",
    contributors_url: "/contributors",
    deployments_url: "/deployments",
    downloads_url: "/downloads",
    events_url: "/events",
    forks_url: "/forks",
    git_commits_url: "/git/commits{/sha}",
    git_refs_url: "/git/refs{/sha}",
    git_tags_url: "/git/tags{/sha}",
    hooks_url: "/hooks",
    issue_comment_url: "/issues/comments{/number}",
    issue_events_url: "/issues/events{/number}",
    issues_url: "/issues{/number}",
    keys_url: "/keys{/key_id}",
    labels_url: "/labels{/name}",
    languages_url: "/languages",
    merges_url: "/merges",
    milestones_url: "/milestones{/number}",
    notifications_url: "/notifications{?since,all,participating}",
    pulls_url: "/pulls{/number}",
    releases_url: "/releases{/id}",
    stargazers_url: "/stargazers",
    statuses_url: "/statuses/{sha}",
    subscribers_url: "/subscribers",
    subscription_url: "/subscription",
    tags_url: "/tags",
    teams_url: "/teams",
    trees_url: "/git/trees{/sha}",
  };
  const openCount = () => issues.filter((i) => i.state === "open").length + pulls.filter((p) => p.state === "open").length;
  // One shape for repos/get (full-repository) and a PR's head.repo/base.repo (repository): the union of both.
  const repoJson = () => ({
    id: 7_000_001,
    node_id: legacyNodeId("Repository", 7_000_001),
    name: repo,
    full_name: `${owner}/${repo}`,
    owner: userJson(ownerUser),
    private: false,
    html_url: repoHtml,
    description: null,
    fork: false,
    url: repoApi,
    ...Object.fromEntries(Object.entries(REPO_LINKS).map(([k, suffix]) => [k, `${repoApi}${suffix}`])),
    git_url: `git://github.com/${owner}/${repo}.git`,
    ssh_url: `git@github.com:${owner}/${repo}.git`,
    clone_url: `${repoHtml}.git`,
    svn_url: repoHtml,
    mirror_url: null,
    homepage: null,
    language: "Python",
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    subscribers_count: 1,
    network_count: 0,
    size: 108,
    default_branch: "main",
    open_issues: openCount(),
    open_issues_count: openCount(),
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: "public",
    license: null,
    allow_forking: true,
    web_commit_signoff_required: false,
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    pushed_at: "2024-01-01T00:00:00Z",
    created_at: "2024-01-01T00:00:00Z",
    updated_at: "2024-01-01T00:00:00Z",
  });
  const branchJson = (b: BranchRef) => ({ ...b, user: userJson(ownerUser), repo: repoJson() });
  const commentCount = (issueNumber: number) => comments.filter((c) => c.issue_number === issueNumber).length;
  /** pulls/list answers pull-request-simple; the other pull operations the full pull-request. */
  const pullJson = (p: StoredPull, full: boolean) => {
    const issueUrl = `${repoApi}/issues/${p.number}`;
    const links = {
      self: p.url,
      html: p.html_url,
      issue: issueUrl,
      comments: `${issueUrl}/comments`,
      review_comments: `${p.url}/comments`,
      review_comment: `${repoApi}/pulls/comments{/number}`,
      commits: `${p.url}/commits`,
      statuses: `${repoApi}/statuses/${p.head.sha}`,
    };
    const simple = {
      url: p.url,
      id: p.id,
      node_id: p.node_id,
      html_url: p.html_url,
      diff_url: `${p.html_url}.diff`,
      patch_url: `${p.html_url}.patch`,
      issue_url: issueUrl,
      commits_url: links.commits,
      review_comments_url: links.review_comments,
      review_comment_url: links.review_comment,
      comments_url: links.comments,
      statuses_url: links.statuses,
      number: p.number,
      state: p.state,
      locked: false,
      title: p.title,
      user: userJson(p.user),
      body: p.body,
      labels: [],
      milestone: null,
      active_lock_reason: null,
      created_at: p.created_at,
      updated_at: p.updated_at,
      closed_at: p.closed_at,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: branchJson(p.head),
      base: branchJson(p.base),
      _links: Object.fromEntries(Object.entries(links).map(([k, href]) => [k, { href }])),
      author_association: "NONE",
      auto_merge: null,
      draft: p.draft,
    };
    if (!full) return simple;
    // GitHub computes mergeability in the background; right after a write it reports null/"unknown".
    const mergeability = { mergeable: null, rebaseable: null, mergeable_state: "unknown" };
    const counts = { comments: commentCount(p.number), review_comments: 0, commits: 1, additions: 0, deletions: 0, changed_files: 0 };
    return { ...simple, merged: false, merged_by: null, maintainer_can_modify: false, ...mergeability, ...counts };
  };
  const commentJson = (c: StoredComment) => ({
    id: c.id,
    node_id: c.node_id,
    url: c.url,
    html_url: c.html_url,
    body: c.body,
    user: userJson(c.user),
    created_at: c.created_at,
    updated_at: c.updated_at,
    issue_url: c.issue_url,
    author_association: c.user.login === actor.login ? "NONE" : "MEMBER",
    performed_via_github_app: null,
  });

  // ---- state

  const headLabel = (ref: string) => `${owner}:${ref}`;
  const branch = (ref: string): BranchRef => ({ ref, label: headLabel(ref), sha: createHash("sha1").update(ref).digest("hex") });
  const pullByNumber = (value: string | undefined) => pulls.find((p) => p.number === Number(value));
  const issueExists = (n: number) => pulls.some((p) => p.number === n) || issues.some((i) => i.number === n);
  const commentById = (value: string | undefined) => comments.find((c) => c.id === Number(value));
  const duplicateOf = (p: { number?: number; head: string; base: string }) =>
    pulls.find((o) => o.state === "open" && o.number !== p.number && o.head.ref === p.head && o.base.ref === p.base);
  const alreadyExists = (operation: Operation, head: string) =>
    validationFailed(operation, [
      { resource: "PullRequest", code: "custom", message: `A pull request already exists for ${headLabel(head)}.` },
    ]);

  function addComment(comment: { issue_number: number; body: string; user?: StandInUser }): StoredComment {
    if (!issueExists(comment.issue_number)) throw new Error(`stand-in: there is no issue or pull request #${comment.issue_number}`);
    const id = ++lastCommentId;
    const kind = pulls.some((p) => p.number === comment.issue_number) ? "pull" : "issues";
    const stamp = now();
    const stored: StoredComment = {
      id,
      node_id: legacyNodeId("IssueComment", id),
      issue_number: comment.issue_number,
      body: comment.body,
      html_url: `${repoHtml}/${kind}/${comment.issue_number}#issuecomment-${id}`,
      url: `${repoApi}/issues/comments/${id}`,
      issue_url: `${repoApi}/issues/${comment.issue_number}`,
      user: comment.user ?? actor,
      created_at: stamp,
      updated_at: stamp,
    };
    comments.push(stored);
    return stored;
  }

  /** Pages as GitHub does: per_page up to 100 (default 30) and a Link header to the neighbouring pages. */
  function paged(items: unknown[], call: Call): Reply {
    const perPage = Math.min(Math.max(Number(call.query.per_page ?? 30) || 30, 1), 100);
    const page = Math.max(Number(call.query.page ?? 1) || 1, 1);
    const last = Math.max(Math.ceil(items.length / perPage), 1);
    const at = (n: number) => `<${api}${call.path}?${new URLSearchParams({ ...call.query, page: String(n) })}>`;
    const rels = [
      page > 1 && `${at(page - 1)}; rel="prev"`,
      page < last && `${at(page + 1)}; rel="next"`,
      page < last && `${at(last)}; rel="last"`,
      page > 1 && `${at(1)}; rel="first"`,
    ].filter(Boolean);
    return { status: 200, body: items.slice((page - 1) * perPage, page * perPage), headers: rels.length ? { link: rels.join(", ") } : {} };
  }

  const handlers: Record<string, (call: Call) => Reply> = {
    "repos/get": () => ({ status: 200, body: repoJson() }),

    "pulls/list": (call) => {
      const { state = "open", head, base, sort = "created", direction } = call.query;
      // GitHub silently ignores a head filter without the "owner:" prefix and lists every PR.
      const [headOwner, headRef] = head?.includes(":") ? [head.slice(0, head.indexOf(":")), head.slice(head.indexOf(":") + 1)] : [];
      const key = (p: StoredPull) => (sort === "updated" ? p.updated_at : p.created_at);
      const sign = (direction ?? (sort === "created" ? "desc" : "asc")) === "asc" ? 1 : -1;
      const found = pulls
        .filter((p) => state === "all" || p.state === state)
        .filter((p) => headRef === undefined || (headOwner?.toLowerCase() === owner.toLowerCase() && p.head.ref === headRef))
        .filter((p) => base === undefined || p.base.ref === base)
        .sort((a, b) => sign * (key(a).localeCompare(key(b)) || a.number - b.number));
      return paged(
        found.map((p) => pullJson(p, false)),
        call,
      );
    },

    "pulls/create": (call) => {
      const { title, body, draft } = call.body as { title?: string; body?: string; draft?: boolean };
      const rawHead = String(call.body.head);
      const base = String(call.body.base);
      const colon = rawHead.indexOf(":");
      if (colon >= 0 && rawHead.slice(0, colon).toLowerCase() !== owner.toLowerCase()) {
        return validationFailed(call.operation, [{ resource: "PullRequest", field: "head", code: "invalid" }]);
      }
      const head = rawHead.slice(colon + 1);
      if (call.body.issue !== undefined) {
        return validationFailed(call.operation, [
          { resource: "PullRequest", code: "custom", message: "stand-in: issue conversion is not implemented" },
        ]);
      }
      if (title === undefined)
        return validationFailed(call.operation, [{ resource: "PullRequest", field: "title", code: "missing_field" }]);
      if (head === base)
        return validationFailed(call.operation, [
          { resource: "PullRequest", code: "custom", message: `No commits between ${base} and ${head}` },
        ]);
      if (duplicateOf({ head, base })) return alreadyExists(call.operation, head);
      const number = ++lastNumber;
      const id = 1_500_000_000 + number;
      const stamp = now();
      const pull: StoredPull = {
        id,
        node_id: legacyNodeId("PullRequest", id),
        number,
        title,
        body: body ?? null,
        state: "open",
        draft: draft ?? false,
        head: branch(head),
        base: branch(base),
        html_url: `${repoHtml}/pull/${number}`,
        url: `${repoApi}/pulls/${number}`,
        user: actor,
        created_at: stamp,
        updated_at: stamp,
        closed_at: null,
      };
      pulls.push(pull);
      return { status: 201, body: pullJson(pull, true), headers: { location: pull.url } };
    },

    "pulls/get": (call) => {
      const pull = pullByNumber(call.params.pull_number);
      return pull ? { status: 200, body: pullJson(pull, true) } : notFound(call.operation.docsUrl);
    },

    "pulls/update": (call) => {
      const pull = pullByNumber(call.params.pull_number);
      if (!pull) return notFound(call.operation.docsUrl);
      const change = call.body as { title?: string; body?: string; base?: string; state?: "open" | "closed" };
      if (
        change.state === "open" &&
        pull.state === "closed" &&
        duplicateOf({ number: pull.number, head: pull.head.ref, base: change.base ?? pull.base.ref })
      ) {
        return alreadyExists(call.operation, pull.head.ref);
      }
      const before = JSON.stringify(pull);
      if (change.title !== undefined) pull.title = change.title;
      if (change.body !== undefined) pull.body = change.body;
      if (change.base !== undefined) pull.base = branch(change.base);
      if (change.state !== undefined && change.state !== pull.state) {
        pull.state = change.state;
        pull.closed_at = change.state === "closed" ? now() : null;
      }
      if (JSON.stringify(pull) !== before) pull.updated_at = now();
      return { status: 200, body: pullJson(pull, true) };
    },

    "issues/list-comments": (call) => {
      const number = Number(call.params.issue_number);
      if (!issueExists(number)) return notFound(call.operation.docsUrl);
      const since = call.query.since;
      const found = comments
        .filter((c) => c.issue_number === number && (since === undefined || c.updated_at >= since))
        .sort((a, b) => a.id - b.id);
      return paged(found.map(commentJson), call);
    },

    "issues/create-comment": (call) => {
      const number = Number(call.params.issue_number);
      if (!issueExists(number)) return notFound(call.operation.docsUrl);
      const comment = addComment({ issue_number: number, body: String(call.body.body) });
      return { status: 201, body: commentJson(comment), headers: { location: comment.url } };
    },

    "issues/get-comment": (call) => {
      const comment = commentById(call.params.comment_id);
      return comment ? { status: 200, body: commentJson(comment) } : notFound(call.operation.docsUrl);
    },

    "issues/update-comment": (call) => {
      const comment = commentById(call.params.comment_id);
      if (!comment) return notFound(call.operation.docsUrl);
      if (comment.body !== call.body.body) {
        comment.body = String(call.body.body);
        comment.updated_at = now();
      }
      return { status: 200, body: commentJson(comment) };
    },

    "issues/delete-comment": (call) => {
      const comment = commentById(call.params.comment_id);
      if (!comment) return notFound(call.operation.docsUrl);
      comments.splice(comments.indexOf(comment), 1);
      return { status: 204 };
    },
  };

  return {
    url: api,
    owner,
    repo,
    requests,
    violations,
    pulls,
    issues,
    comments,
    addIssue: ({ title, body, labels }) => {
      const number = ++lastNumber;
      const id = 1_000_000_000 + number;
      issues.push({ id, node_id: legacyNodeId("Issue", id), number, title, body: body ?? null, labels: labels ?? [], state: "open" });
      return number;
    },
    addComment,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Octokit's fetch keeps sockets alive; without this close() would wait for them to time out.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** GitHub's legacy global node id: base64 of "0<length of type>:<Type><id>", e.g. "MDExOlB1bGxSZXF1ZXN0MQ==". */
function legacyNodeId(type: string, id: number): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString("base64");
}
