import { describe, expect, it } from "vitest";
import { redactDeep, redactSecrets } from "../src/redact.js";

const env = { OPENAI_API_KEY: "key-with-&-and-<-0123", GITHUB_TOKEN: "abcdefgh", PATH: "/usr/bin:/bin", SHORT_TOKEN: "1234567" };

describe("redactSecrets", () => {
  it("removes the values of secret-named variables, as they are and as XML or JSON escape them", () => {
    const text = `raw key-with-&-and-<-0123, xml key-with-&amp;-and-&lt;-0123, json ${JSON.stringify({ k: "abcdefgh\n" })}`;
    expect(redactSecrets(text, env)).toBe(
      'raw [redacted OPENAI_API_KEY], xml [redacted OPENAI_API_KEY], json {"k":"[redacted GITHUB_TOKEN]\\n"}',
    );
  });

  it("leaves other variables and values too short to be secrets alone", () => {
    expect(redactSecrets("/usr/bin:/bin 1234567", env)).toBe("/usr/bin:/bin 1234567");
  });

  it("removes well-known token formats that are not in the environment", () => {
    expect(redactSecrets(`token ghp_${"a".repeat(36)} and sk-${"b".repeat(24)}`, {})).toBe("token [redacted token] and [redacted token]");
  });

  it("sees a secret set, changed or removed in the same environment object between calls", () => {
    const live: NodeJS.ProcessEnv = { PATH: "/usr/bin" };
    expect(redactSecrets("first-secret-value", live)).toBe("first-secret-value");
    live.MODEL_API_KEY = "first-secret-value";
    expect(redactSecrets("first-secret-value", live)).toBe("[redacted MODEL_API_KEY]");
    live.MODEL_API_KEY = "second-secret-value";
    expect(redactSecrets("first-secret-value second-secret-value", live)).toBe("first-secret-value [redacted MODEL_API_KEY]");
    live.OTHER_TOKEN = "a-third-secret-value";
    expect(redactSecrets("second-secret-value a-third-secret-value", live)).toBe("[redacted MODEL_API_KEY] [redacted OTHER_TOKEN]");
    delete live.MODEL_API_KEY;
    expect(redactSecrets("second-secret-value", live)).toBe("second-secret-value");
  });

  it("reads process.env anew on every call", () => {
    const name = "RPG_FORGE_TEST_SECRET_TOKEN";
    expect(redactSecrets("process-env-secret-1")).toBe("process-env-secret-1");
    process.env[name] = "process-env-secret-1";
    try {
      expect(redactSecrets("process-env-secret-1")).toBe(`[redacted ${name}]`);
      process.env[name] = "process-env-secret-2";
      expect(redactSecrets("process-env-secret-1 process-env-secret-2")).toBe(`process-env-secret-1 [redacted ${name}]`);
    } finally {
      delete process.env[name];
    }
    expect(redactSecrets("process-env-secret-2")).toBe("process-env-secret-2");
  });
});

describe("redactDeep", () => {
  it("redacts every string of JSON-shaped data, keeping keys, numbers and booleans", () => {
    const data = { nodes: { abcdefgh: { output: "got abcdefgh", count: 2, ok: true, list: ["abcdefgh", null] } } };
    expect(redactDeep(data, env)).toEqual({
      nodes: { abcdefgh: { output: "got [redacted GITHUB_TOKEN]", count: 2, ok: true, list: ["[redacted GITHUB_TOKEN]", null] } },
    });
  });
});
