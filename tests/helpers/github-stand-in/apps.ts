import { createPublicKey, createVerify, type KeyObject } from "node:crypto";
import type { Call, Reply } from "./handlers.js";
import type { Site } from "./shapes.js";
import type { StandInApp, StandInUser } from "./types.js";

/**
 * The stand-in as a GitHub App's installation on its repository (the `app` option with a `publicKey`):
 * apps/get-repo-installation and apps/create-installation-access-token answer only a JWT that the App's
 * key signed (RS256), issued by the App (`iss`), unexpired and at most ten minutes long, as GitHub checks
 * it; the token minted lasts an hour. A request with that token is the App's: it writes as the App's bot
 * user (`<slug>[bot]`) and owns the check runs it makes. Refusals are GitHub's 401, with its messages where known.
 */

/** Who a request acts as: the author of what it writes, and the App owning the check runs it makes. */
export interface Caller {
  user: StandInUser;
  app: StandInApp;
  /** The App whose installation token made the request (a comment's performed_via_github_app); undefined for GITHUB_TOKEN. */
  installation?: StandInApp | undefined;
}

/** The operations served to the App itself, with its JWT; create-installation-access-token's path is outside the repository's. */
export const APP_OPERATIONS = new Set(["apps/get-repo-installation", "apps/create-installation-access-token"]);

/** The App's bot user, the author GitHub shows for what its installation tokens write. */
export const botOf = (app: StandInApp): StandInUser => ({ login: `${app.slug}[bot]`, id: 100_000_000 + app.id, type: "Bot" });

const TOKEN_LIFETIME_MS = 3_600_000;
/** GitHub refuses a JWT whose expiry is more than ten minutes ahead (a minute of clock drift allowed here). */
const MAX_JWT_SECONDS = 600 + 60;

const unauthorized = (message: string): Reply => ({
  status: 401,
  body: { message, documentation_url: "https://docs.github.com/rest", status: "401" },
});

interface Parts {
  site: Site;
  /** The stand-in's clock, in milliseconds. */
  clock: () => number;
  app: StandInApp & { publicKey: string };
  userJson: (u: StandInUser) => unknown;
}

export function createApps({ site, clock, app, userJson }: Parts) {
  const publicKey: KeyObject = createPublicKey(app.publicKey);
  const installationId = 60_000_000 + app.id;
  const tokens = new Map<string, number>();
  const minted: { token: string; expires_at: string }[] = [];
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  const permissions = { actions: "write", checks: "write", contents: "write", issues: "write", metadata: "read", pull_requests: "write" };

  /** Why the authorization header is no JWT of the App's that GitHub would take now; undefined when it is one. */
  function jwtProblem(authorization: string): string | undefined {
    const [scheme = "", jwt = ""] = authorization.split(" ");
    const [header = "", claims = "", signature = "", ...more] = jwt.split(".");
    if (scheme.toLowerCase() !== "bearer" || more.length > 0 || !signature) return "A JSON web token could not be decoded";
    let decoded: { alg?: unknown };
    let payload: { iss?: unknown; iat?: unknown; exp?: unknown };
    try {
      decoded = JSON.parse(Buffer.from(header, "base64url").toString()) as typeof decoded;
      payload = JSON.parse(Buffer.from(claims, "base64url").toString()) as typeof payload;
    } catch {
      return "A JSON web token could not be decoded";
    }
    const signed = createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(publicKey, signature, "base64url");
    if (decoded.alg !== "RS256" || !signed) return "A JSON web token could not be decoded";
    if (String(payload.iss) !== String(app.id)) return `'Issuer' claim ('iss') must be an Integer`;
    const now = clock() / 1000;
    if (typeof payload.iat !== "number" || payload.iat > now + 60)
      return "'Issued at' claim ('iat') must be an Integer representing a time in the past";
    if (typeof payload.exp !== "number" || payload.exp <= now)
      return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
    if (payload.exp > now + MAX_JWT_SECONDS) return "'Expiration time' claim ('exp') is too far in the future";
    return undefined;
  }

  const installationJson = () => ({
    id: installationId,
    client_id: `Iv1.${app.id.toString(16).padStart(16, "0")}`,
    account: userJson({ login: site.owner, id: 9_000_001, type: "Organization" }),
    repository_selection: "selected",
    access_tokens_url: `${site.api}/app/installations/${installationId}/access_tokens`,
    repositories_url: `${site.api}/installation/repositories`,
    html_url: `https://github.com/organizations/${site.owner}/settings/installations/${installationId}`,
    app_id: app.id,
    app_slug: app.slug,
    target_id: 9_000_001,
    target_type: "Organization",
    permissions,
    events: ["push", "issues", "issue_comment", "pull_request", "pull_request_review", "check_run"],
    created_at: "2024-01-01T00:00:00Z",
    updated_at: "2024-01-01T00:00:00Z",
    single_file_name: null,
    suspended_by: null,
    suspended_at: null,
  });

  const handlers: Record<string, (call: Call) => Reply> = {
    "apps/get-repo-installation": () => ({ status: 200, body: installationJson() }),

    "apps/create-installation-access-token": (call) => {
      if (Number(call.params.installation_id) !== installationId)
        return { status: 404, body: { message: "Not Found", documentation_url: call.operation.docsUrl, status: "404" } };
      const token = `ghs_stand_in_${minted.length + 1}`;
      const expiresAt = clock() + TOKEN_LIFETIME_MS;
      tokens.set(token, expiresAt);
      minted.push({ token, expires_at: iso(expiresAt) });
      return {
        status: 201,
        body: { token, expires_at: iso(expiresAt), permissions, repository_selection: "selected" },
      };
    },
  };

  /**
   * Who a request acts as, or the 401 GitHub answers: the App's operations take only its JWT; a token minted
   * here is the App's until it expires; any other token is `otherwise`'s.
   */
  function callerOf(operationId: string, authorization: string, otherwise: Caller): Caller | Reply {
    if (APP_OPERATIONS.has(operationId)) {
      const problem = jwtProblem(authorization);
      return problem === undefined ? { user: botOf(app), app } : unauthorized(problem);
    }
    const token = /^(?:token|bearer) (\S+)$/i.exec(authorization)?.[1] ?? "";
    const expiresAt = tokens.get(token);
    if (expiresAt === undefined) return otherwise;
    return expiresAt > clock() ? { user: botOf(app), app, installation: app } : unauthorized("Bad credentials");
  }

  return { handlers, callerOf, minted };
}
