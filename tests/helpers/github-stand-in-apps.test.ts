import { createSign, generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createAppAuth } from "@octokit/auth-app";
import { Octokit } from "@octokit/rest";
import { Ajv } from "ajv";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "./github-stand-in.js";

/**
 * The stand-in as the rpg-forge App's installation (an `app` with a public key): it mints installation
 * tokens only for a JWT the App's key signed, and what such a token writes is the App's bot's.
 */

const APP = { id: 4242, slug: "rpg-forge", name: "rpg-forge" };
const target = { owner: "octo", repo: "statkit" };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const keyPair = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
const ours = keyPair();
const theirs = keyPair();
const pem = (key: KeyObject) => key.export({ type: "pkcs1", format: "pem" }).toString();

/** A JWT as an App makes one: RS256 over base64url header and claims. */
function jwt(key: KeyObject, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}`;
  return `${unsigned}.${createSign("RSA-SHA256").update(unsigned).sign(key, "base64url")}`;
}
const seconds = () => Math.floor(Date.now() / 1000);
const fresh = (iss: unknown = APP.id) => ({ iat: seconds() - 30, exp: seconds() + 540, iss });

let standIn: GitHubStandIn;
let clockShift = 0;

beforeEach(async () => {
  clockShift = 0;
  standIn = await startGitHubStandIn({
    ...target,
    app: { ...APP, publicKey: ours.publicKey.export({ type: "spki", format: "pem" }).toString() },
    now: () => new Date(Date.now() + clockShift),
  });
});
afterEach(async () => {
  await standIn.close();
});

const withJwt = (token: string) => new Octokit({ auth: token, baseUrl: standIn.url, log: quiet });
/** Octokit sends a string auth with three dot-separated parts as `bearer`, as @octokit/auth-app does. */
const mint = (token: string) => withJwt(token).rest.apps.createInstallationAccessToken({ installation_id: 60_004_242 });

/** Each answer has the published response schema its key names. */
async function expectShapes(answers: Record<string, unknown>): Promise<void> {
  const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
  // Ajv takes `nullable` only beside `type`; elsewhere (installation.account is nullable anyOf) it is dropped, and null refused.
  const spec = JSON.parse(await readFile(file, "utf8"), (_key, value: unknown) => {
    if (value && typeof value === "object" && "nullable" in value && !("type" in value)) delete (value as { nullable?: unknown }).nullable;
    return value;
  }) as { components: { schemas: Record<string, unknown> } };
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: "gh", components: { schemas: spec.components.schemas } });
  for (const [name, data] of Object.entries(answers)) {
    const validate = ajv.getSchema(`gh#/components/schemas/${name}`)!;
    validate(data);
    expect(validate.errors ?? [], name).toEqual([]);
  }
}

async function statusOf(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = (await promise.then(
    () => ({ status: 0, response: { data: { message: "succeeded" } } }),
    (e: unknown) => e,
  )) as { status: number; response: { data: { message: string } } };
  return { status: error.status, message: error.response.data.message };
}

describe("the stand-in as the App's installation", () => {
  it("mints an installation token for the App's own JWT, found the way @octokit/auth-app finds it", async () => {
    const asApp = new Octokit({
      authStrategy: createAppAuth,
      auth: { appId: APP.id, privateKey: pem(ours.privateKey) },
      baseUrl: standIn.url,
    });
    const { data: installation } = await asApp.rest.apps.getRepoInstallation(target);
    const minted = (await asApp.auth({ type: "installation", installationId: installation.id })) as { token: string; expiresAt: string };

    expect(minted.token).toBe("ghs_stand_in_1");
    expect(Date.parse(minted.expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(standIn.installationTokens).toEqual([{ token: "ghs_stand_in_1", expires_at: minted.expiresAt }]);
    expect(installation).toMatchObject({ app_id: APP.id, app_slug: APP.slug, account: { login: "octo" } });
    expect(standIn.requests.map((r) => [r.operationId, r.headers.authorization?.split(" ")[0]])).toEqual([
      ["apps/get-repo-installation", "bearer"],
      ["apps/create-installation-access-token", "bearer"],
    ]);
    expect(standIn.violations).toEqual([]);

    // Both answers have GitHub's published shapes.
    const { data: token } = await mint(jwt(ours.privateKey, fresh()));
    await expectShapes({ installation, "installation-token": token });
  });

  it("refuses a JWT another key signed, an expired one, one of another App, and one that runs too long, with 401", async () => {
    expect(await statusOf(mint(jwt(theirs.privateKey, fresh())))).toEqual({
      status: 401,
      message: "A JSON web token could not be decoded",
    });
    expect(await statusOf(mint(jwt(ours.privateKey, { iat: seconds() - 700, exp: seconds() - 100, iss: APP.id })))).toMatchObject({
      status: 401,
      message: expect.stringContaining("'Expiration time' claim ('exp') must be a numeric value representing the future time"),
    });
    expect(await statusOf(mint(jwt(ours.privateKey, fresh(9999))))).toMatchObject({ status: 401 });
    expect(await statusOf(mint(jwt(ours.privateKey, { iat: seconds(), exp: seconds() + 3600, iss: APP.id })))).toMatchObject({
      status: 401,
      message: "'Expiration time' claim ('exp') is too far in the future",
    });
    // Nor is a token a JWT, nor is the lookup of the installation open to anything but the App's JWT.
    expect((await statusOf(mint("ghs_some_token"))).status).toBe(401);
    expect((await statusOf(withJwt(jwt(theirs.privateKey, fresh())).rest.apps.getRepoInstallation(target))).status).toBe(401);
    // Another installation's id is none of this repository's.
    expect(
      (await statusOf(withJwt(jwt(ours.privateKey, fresh())).rest.apps.createInstallationAccessToken({ installation_id: 1 }))).status,
    ).toBe(404);
    expect(standIn.installationTokens).toEqual([]);
    expect(standIn.violations).toEqual([]);
  });

  it("writes as the App's bot with a minted token, and as GITHUB_TOKEN's user with any other; a token expires after an hour", async () => {
    const issue = standIn.addIssue({ title: "Generate statkit" });
    const { data: token } = await mint(jwt(ours.privateKey, fresh()));
    const asInstallation = new Octokit({ auth: token.token, baseUrl: standIn.url, log: quiet });
    const asJob = new Octokit({ auth: "ghs_job_token", baseUrl: standIn.url, log: quiet });

    const { data: byApp } = await asInstallation.rest.issues.createComment({ ...target, issue_number: issue, body: "from the App" });
    const { data: byJob } = await asJob.rest.issues.createComment({ ...target, issue_number: issue, body: "from the job" });
    expect(byApp.user).toMatchObject({ login: "rpg-forge[bot]", type: "Bot" });
    expect(byApp.performed_via_github_app).toMatchObject({ id: APP.id, slug: APP.slug });
    expect(byJob.user).toMatchObject({ login: "github-actions[bot]", type: "Bot" });
    expect(byJob.performed_via_github_app).toBeNull();

    const sha = "a".repeat(40);
    const { data: appRun } = await asInstallation.rest.checks.create({ ...target, name: "rpg-forge / io", head_sha: sha });
    const { data: jobRun } = await asJob.rest.checks.create({ ...target, name: "other", head_sha: sha });
    expect(appRun.app).toMatchObject({ id: APP.id, slug: APP.slug });
    expect(jobRun.app).toMatchObject({ slug: "github-actions" });
    expect(standIn.checkRuns.map((r) => r.app.slug)).toEqual(["rpg-forge", "github-actions"]);
    await expectShapes({ "issue-comment": byApp, integration: appRun.app });
    // Only the App that made a check run may change it.
    expect(
      (await statusOf(asJob.rest.checks.update({ ...target, check_run_id: appRun.id, status: "completed", conclusion: "success" }))).status,
    ).toBe(403);

    clockShift = 61 * 60_000;
    expect(await statusOf(asInstallation.rest.issues.createComment({ ...target, issue_number: issue, body: "late" }))).toEqual({
      status: 401,
      message: "Bad credentials",
    });
    expect(standIn.violations).toEqual([]);
  });
});
