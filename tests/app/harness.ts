/**
 * The real rpg-forge App behind Probot's own webhook middleware on a real HTTP server
 * (127.0.0.1, a free port), fed signed deliveries; GitHub's API is nock, network off. The
 * App mints its installation token through nock with a private key made here, and the
 * token request must carry a JWT that key signed for the App's id.
 */
import { createHmac, createVerify, generateKeyPairSync, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webhookExample } from "../helpers/webhook-examples.js";

import nock from "nock";
import type { EmitterWebhookEventName } from "@octokit/webhooks";
import { createNodeMiddleware, createProbot, ProbotOctokit, type Context } from "probot";
import { afterEach, beforeEach, expect } from "vitest";

import app from "../../src/app/index.js";

export const APP_ID = 4242;
export const SECRET = "test-webhook-secret";
export const INSTALLATION = 31337;
export const TOKEN = "ghs_installation_token_for_tests";
export const OWNER = "octo";
export const REPO = "statkit";
export const API = "https://api.github.com";

type Repository = Context<"issue_comment.created">["payload"]["repository"];
type OctokitOptions = NonNullable<ConstructorParameters<typeof ProbotOctokit>[0]>;

const { privateKey, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

/** Whether `authorization` is `bearer <JWT>` signed with the App's key, issued by the App. */
function isAppJwt(authorization: string): boolean {
  const [scheme, jwt = ""] = authorization.split(" ");
  const [header = "", claims = "", signature = ""] = jwt.split(".");
  const verify = createVerify("RSA-SHA256").update(`${header}.${claims}`);
  const { iss } = JSON.parse(Buffer.from(claims, "base64url").toString()) as { iss: unknown };
  return scheme?.toLowerCase() === "bearer" && verify.verify(publicKey, signature, "base64url") && String(iss) === String(APP_ID);
}

/**
 * GitHub's example payload of an event (@octokit/webhooks-examples) for octo/statkit and our
 * installation, then edited as a case needs. An event without actions (push) takes its first example.
 */
export function example<E extends EmitterWebhookEventName>(
  name: E,
  edit: (payload: Context<E>["payload"]) => void = () => {},
): Context<E>["payload"] {
  const [event, action] = name.split(".");
  const payload = webhookExample(event!, action) as Context<E>["payload"] & Record<"repository", Repository>;
  Object.assign(payload.repository, { name: REPO, full_name: `${OWNER}/${REPO}`, default_branch: "main" });
  payload.repository.owner.login = OWNER;
  Object.assign(payload, { installation: { id: INSTALLATION, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMzEzMzc=" } });
  edit(payload);
  return payload;
}

export interface Delivery {
  event: string;
  payload: unknown;
  id?: string;
  /** The secret the signature is made with; the App's own unless a test forges one. */
  secret?: string;
}

export interface AppUnderTest {
  /** Posts a signed delivery to the App's webhook endpoint; resolves with the HTTP status once the App has handled it. */
  deliver(delivery: Delivery): Promise<number>;
}

/**
 * Starts a fresh App (fresh token cache and delivery log) before each test and stops it after;
 * afterwards, fails the test on an unused interceptor or a request no interceptor matched.
 */
export function useApp(): AppUnderTest {
  let server: Server | undefined;
  let unmatched: string[] = [];
  // Our own deliveries to the App pass through nock too (allowed, so unmatched).
  const onNoMatch = (req: { method?: string; path?: string; host?: string }) => {
    if (req.host?.startsWith("127.0.0.1")) return;
    unmatched.push(`${req.method} ${req.path}`);
  };

  beforeEach(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect("127.0.0.1");
    unmatched = [];
    nock.emitter.on("no match", onNoMatch);
    const probot = createProbot({
      env: {},
      overrides: {
        appId: APP_ID,
        privateKey,
        secret: SECRET,
        logLevel: "fatal",
        // Probot spaces writes a second apart and retries 5xx: right for GitHub, slow for a test. A function, since
        // Probot's own throttle options would replace an object's.
        Octokit: ProbotOctokit.defaults((options: OctokitOptions) => ({
          ...options,
          throttle: { ...options.throttle, enabled: false },
          retry: { enabled: false },
        })),
      },
    });
    const middleware = await createNodeMiddleware(app, { probot });
    server = createServer((req, res) => void middleware(req, res, () => res.writeHead(404).end()));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  });

  afterEach(async () => {
    nock.emitter.removeListener("no match", onNoMatch);
    await new Promise((resolve) => server?.close(resolve));
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    expect(unmatched, "requests no interceptor matched").toEqual([]);
    expect(pending, "interceptors never used").toEqual([]);
  });

  return {
    async deliver({ event, payload, id = randomUUID(), secret = SECRET }) {
      const body = JSON.stringify(payload);
      const { port } = server!.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": id,
          "x-github-hook-id": "1",
          "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
        },
        body,
      });
      await response.text();
      return response.status;
    },
  };
}

/** nock for the repository's API with the installation token: the App must use it, not its JWT. */
export function github(): nock.Scope {
  return nock(API, { reqheaders: { authorization: `token ${TOKEN}` } });
}

/** The installation token the App mints (once per App instance), for a JWT its own key signed. */
export function mintsToken(): nock.Scope {
  return nock(API)
    .post(`/app/installations/${INSTALLATION}/access_tokens`)
    .matchHeader("authorization", isAppJwt)
    .reply(201, { token: TOKEN, expires_at: new Date(Date.now() + 3_600_000).toISOString(), permissions: {}, repository_selection: "all" });
}

/** `.github/rpg-forge.yml`: this YAML, or none (then the owner's `.github` repository is asked, and has none either). */
export function hasConfig(yaml?: string): nock.Scope {
  const scope = github();
  if (yaml !== undefined)
    return scope.get(`/repos/${OWNER}/${REPO}/contents/.github%2Frpg-forge.yml`).reply(200, yaml, { "content-type": "text/plain" });
  return scope
    .get(`/repos/${OWNER}/${REPO}/contents/.github%2Frpg-forge.yml`)
    .reply(404, { message: "Not Found" })
    .get(`/repos/${OWNER}/.github/contents/.github%2Frpg-forge.yml`)
    .reply(404, { message: "Not Found" });
}

/** The repository's rpg-forge workflow file on its default branch (main), or none. */
export function hasWorkflow(yaml?: string, file = "rpg-generate.yml"): nock.Scope {
  const path = `/repos/${OWNER}/${REPO}/contents/.github%2Fworkflows%2F${file}`;
  const scope = github().get(path).query({ ref: "main" });
  if (yaml === undefined) return scope.reply(404, { message: "Not Found" });
  return scope.reply(200, {
    type: "file",
    encoding: "base64",
    path: `.github/workflows/${file}`,
    content: Buffer.from(yaml).toString("base64"),
  });
}

/** The collaborator permission GitHub reports for `login`. */
export function hasRole(login: string, role: "admin" | "maintain" | "write" | "triage" | "read" | "none"): nock.Scope {
  const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
  return github()
    .get(`/repos/${OWNER}/${REPO}/collaborators/${login}/permission`)
    .reply(200, { permission, role_name: role, user: { login, type: "User" } });
}

/** The bodies the App sent to an endpoint, filled in as it calls it. */
export function recorder(): { bodies: unknown[]; take: (body: unknown) => boolean } {
  const bodies: unknown[] = [];
  return { bodies, take: (body) => (bodies.push(body), true) };
}

const repoPath = `/repos/${OWNER}/${REPO}`;

/** The App reacts to a comment with this emoji. */
export function reactsToComment(commentId: number, content: "eyes" | "rocket"): nock.Scope {
  return github().post(`${repoPath}/issues/comments/${commentId}/reactions`, { content }).reply(201, { id: 1, content });
}

/** The App reacts to an issue with this emoji. */
export function reactsToIssue(issue: number, content: "eyes" | "rocket"): nock.Scope {
  return github().post(`${repoPath}/issues/${issue}/reactions`, { content }).reply(201, { id: 1, content });
}

/**
 * The App dispatches the workflow; its request bodies land in `taken.bodies`. Every dispatch must ask
 * for the run's details (`return_run_details`, checked here and left out of the recorded body);
 * `run` is GitHub's answer with them (200), else it answers 204 as a GitHub without the parameter does.
 */
export function dispatches(
  taken: ReturnType<typeof recorder>,
  workflow = "rpg-generate.yml",
  status = 204,
  run?: { workflow_run_id: number; run_url: string; html_url: string },
): nock.Scope {
  const scope = github().post(`${repoPath}/actions/workflows/${workflow}/dispatches`, (body: Record<string, unknown>) => {
    const { return_run_details: details, ...rest } = body;
    return details === true && taken.take(rest);
  });
  if (status !== 204) return scope.reply(status, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
  return run ? scope.reply(200, run) : scope.reply(204);
}

/** The workflow's runs on main that wait for the one in progress (GitHub's status `pending`): none, or these. */
export function runsWaiting(urls: string[] = [], workflow = "rpg-generate.yml"): nock.Scope {
  return github()
    .get(`${repoPath}/actions/workflows/${workflow}/runs`)
    .query({ branch: "main", status: "pending", per_page: 1 })
    .reply(200, { total_count: urls.length, workflow_runs: urls.map((html_url, i) => ({ id: 6000 + i, html_url })) });
}

/** A comment as GitHub lists it; `bot` for one rpg-forge wrote. */
export function listed(id: number, issue: number, body: string, bot = true) {
  return {
    id,
    body,
    html_url: `https://github.com/${OWNER}/${REPO}/issues/${issue}#issuecomment-${id}`,
    user: bot ? { login: "rpg-forge[bot]", type: "Bot" } : { login: "Codertocat", type: "User" },
  };
}

/** The comments on an issue or pull request, as the App lists them. */
export function listsComments(issue: number, comments: ReturnType<typeof listed>[]): nock.Scope {
  return github().get(`${repoPath}/issues/${issue}/comments`).query({ per_page: 100 }).reply(200, comments);
}

/** The App comments on an issue or pull request; the bodies land in `taken.bodies`. */
export function comments(issue: number, taken: ReturnType<typeof recorder>): nock.Scope {
  return github()
    .post(`${repoPath}/issues/${issue}/comments`, taken.take)
    .reply(201, (_uri, body) => listed(900 + taken.bodies.length, issue, (body as { body: string }).body));
}

/** GitHub's answer to pulls.get: where the pull request comes from. */
export function getsPull(number: number, head: string, headRepo = `${OWNER}/${REPO}`): nock.Scope {
  return github()
    .get(`${repoPath}/pulls/${number}`)
    .reply(200, { number, head: { ref: head, repo: { full_name: headRepo } }, base: { ref: "main" } });
}
