import { generateKeyPairSync, createVerify } from "node:crypto";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { credentialsFor, useFreshToken } from "../../src/action/credentials.js";

const API = "https://api.github.com";
const context = { apiUrl: API, repository: { owner: "octo", repo: "statkit" } };
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();

beforeAll(() => nock.disableNetConnect());
// Files after this one in the worker reach real local servers.
afterAll(() => nock.enableNetConnect());
afterEach(() => {
  const unused = nock.pendingMocks();
  nock.cleanAll();
  expect(unused).toEqual([]);
});

/** The App's JWT checks out against its public key, and names the App. */
function isAppJwt(authorization: string | undefined): boolean {
  const [header, payload, signature] = (authorization ?? "").replace(/^bearer /i, "").split(".");
  if (!header || !payload || !signature) return false;
  const valid = createVerify("RSA-SHA256").update(`${header}.${payload}`).verify(publicKey, Buffer.from(signature, "base64url"));
  return valid && (JSON.parse(Buffer.from(payload, "base64url").toString()) as { iss: unknown }).iss == 4242;
}

/** GitHub's installation lookup and token mints, each mint's token and expiry in turn. */
function github(tokens: { token: string; expires_at: string }[]): void {
  const scope = nock(API)
    .get("/repos/octo/statkit/installation")
    .matchHeader("authorization", (v) => isAppJwt(v))
    .reply(200, { id: 31337, account: { login: "octo" } });
  for (const token of tokens)
    scope
      .post("/app/installations/31337/access_tokens")
      .matchHeader("authorization", (v) => isAppJwt(v))
      .reply(201, { ...token, permissions: { contents: "write" }, repository_selection: "selected" });
}

describe("the Action's credentials", () => {
  it("write with GITHUB_TOKEN when no App is given, and say so", async () => {
    const credentials = credentialsFor({ githubToken: "ghs_job", appId: "", appPrivateKey: "" }, context);
    expect(credentials.kind).toBe("github-token");
    expect(await credentials.token()).toBe("ghs_job");
  });

  it("write as the App with an installation token, minted with its JWT, masked once handed out", async () => {
    const later = new Date(Date.now() + 3600_000).toISOString();
    github([{ token: "ghs_installation_1", expires_at: later }]);
    const credentials = credentialsFor({ githubToken: "ghs_job", appId: "4242", appPrivateKey: pem }, context);
    const inputs = { githubToken: "ghs_job" };
    const masked: string[] = [];
    await useFreshToken(inputs, credentials, (t) => masked.push(t));
    expect(inputs.githubToken).toBe("ghs_installation_1");
    expect(masked).toEqual(["ghs_installation_1"]);
    // With an hour left, the same token serves the writes after the run.
    await useFreshToken(inputs, credentials, (t) => masked.push(t));
    expect(masked).toEqual(["ghs_installation_1"]);
  });

  it("mint a new token when the one at hand has under ten minutes left, as after a long run", async () => {
    let now = Date.now();
    github([
      { token: "ghs_installation_1", expires_at: new Date(now + 3600_000).toISOString() },
      { token: "ghs_installation_2", expires_at: new Date(now + 2 * 3600_000).toISOString() },
    ]);
    const credentials = credentialsFor({ githubToken: "", appId: "4242", appPrivateKey: pem }, context, () => now);
    expect(await credentials.token()).toBe("ghs_installation_1");
    now += 55 * 60_000; // the run generated for 55 minutes
    expect(await credentials.token()).toBe("ghs_installation_2");
  });

  it("refuse one of app-id and app-private-key without the other, and an App that is not installed, naming the input", async () => {
    expect(() => credentialsFor({ githubToken: "", appId: "4242", appPrivateKey: "" }, context)).toThrow(
      expect.objectContaining({ code: "APP_CREDENTIALS_INCOMPLETE", at: { field: "app-private-key" } }),
    );
    nock(API).get("/repos/octo/statkit/installation").reply(404, { message: "Not Found" });
    const credentials = credentialsFor({ githubToken: "", appId: "4242", appPrivateKey: pem }, context);
    await expect(credentials.token()).rejects.toMatchObject({ code: "APP_CREDENTIALS_REFUSED", at: { field: "app-id" } });
  });
});
