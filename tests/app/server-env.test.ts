import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { applyDotEnv, checkServerEnv } from "../../src/app/server-env.js";

describe("the server's environment", () => {
  it("is complete with APP_ID, a key and WEBHOOK_SECRET, or empty for Probot's setup page outside production", () => {
    expect(() => checkServerEnv({ APP_ID: "1", PRIVATE_KEY: "pem", WEBHOOK_SECRET: "s" })).not.toThrow();
    expect(() => checkServerEnv({ APP_ID: "1", PRIVATE_KEY_PATH: "key.pem", WEBHOOK_SECRET: "s" })).not.toThrow();
    expect(() => checkServerEnv({})).not.toThrow();
  });

  it("refuses to serve without WEBHOOK_SECRET, which would leave Probot's public default in place", () => {
    expect(() => checkServerEnv({ APP_ID: "1", PRIVATE_KEY: "pem" })).toThrow(
      /^APP_ENV_MISSING: WEBHOOK_SECRET not set \(set them in the environment or in \.env, as \.env\.example shows/,
    );
  });

  it("names every missing variable, and in production refuses an empty environment too", () => {
    expect(() => checkServerEnv({ WEBHOOK_SECRET: "s" })).toThrow(/APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH not set/);
    expect(() => checkServerEnv({ NODE_ENV: "production" })).toThrow(/APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET not set/);
  });

  it("takes .env over the environment, as Probot does, and no .env is no error", () => {
    const dir = mkdtempSync(join(tmpdir(), "rpg-forge-app-"));
    writeFileSync(join(dir, ".env"), 'APP_ID=7\nPRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----"\n');
    const env: NodeJS.ProcessEnv = { APP_ID: "1", WEBHOOK_SECRET: "s" };

    applyDotEnv(join(dir, ".env"), env);
    applyDotEnv(join(dir, "missing.env"), env);

    expect(env).toEqual({
      APP_ID: "7",
      WEBHOOK_SECRET: "s",
      PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
    });
  });
});
