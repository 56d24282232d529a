import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadOperations, matchOperation, type JsonObject } from "./description.js";
import { createRepositoryState, DOCS, notFound, type Reply } from "./handlers.js";
import { openRemote } from "./remote.js";
import type { GitHubStandIn, GitHubStandInOptions, StandInRequest, StandInUser } from "./types.js";

/**
 * The HTTP server: records each request, checks it against GitHub's REST description, answers a violation
 * as GitHub would, and routes the rest by operationId to the repository state's handlers.
 */

const GITHUB_ACTIONS_BOT: StandInUser = { login: "github-actions[bot]", id: 41898282, type: "Bot" };

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
  // Opened before listening, so a path that is no bare repository fails the test's setup, not a later merge.
  const remote = options.remote === undefined ? undefined : openRemote(options.remote);
  const requests: StandInRequest[] = [];
  const violations: string[] = [];
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
      const { operationId } = match.operation;
      const handler = state.handlers[operationId];
      const sameRepo = match.params.owner?.toLowerCase() === owner.toLowerCase() && match.params.repo?.toLowerCase() === repo.toLowerCase();
      // The one operation served outside the repository's path: the App (when it has one) minting a token for its installation here.
      const ofTheApp = operationId === "apps/create-installation-access-token" && handler !== undefined;
      if (!handler || !(sameRepo || ofTheApp)) return send(res, notFound(match.operation.docsUrl));
      const caller = state.callerOf(operationId, req.headers.authorization ?? "");
      if ("status" in caller) return send(res, caller);
      const body = (recorded.body ?? {}) as JsonObject;
      try {
        send(res, handler({ params: match.params, query, body, operation: match.operation, path: url.pathname, caller }));
      } catch (error) {
        // A bug in the stand-in must fail the request, not take the test worker down with an uncaught exception.
        send(res, { status: 500, body: { message: `stand-in handler threw: ${(error as Error).message}`, status: "500" } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state = createRepositoryState(
    { api, owner, repo, repoApi: `${api}/repos/${owner}/${repo}`, repoHtml: `https://github.com/${owner}/${repo}`, actor },
    now,
    { remote, deleteBranchOnMerge: options.deleteBranchOnMerge ?? false, app: options.app, clock: () => clock().getTime() },
  );

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

  return {
    url: api,
    owner,
    repo,
    requests,
    violations,
    pulls: state.pulls,
    issues: state.issues,
    comments: state.comments,
    checkRuns: state.checkRuns,
    reviewComments: state.reviewComments,
    installationTokens: state.installationTokens,
    addReview: state.addReview,
    addIssue: state.addIssue,
    addComment: state.addComment,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Octokit's fetch keeps sockets alive; without this close() would wait for them to time out.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
