import { describe, expect, it } from "vitest";
import { promptHash, type ModelRequest } from "../../src/llm/provider.js";
import { createRequestKeys } from "../../src/llm/request-keys.js";

const base: ModelRequest = {
  key: { nodeId: "a", kind: "tests", attempt: 1 },
  schemaName: "tests_reply",
  jsonSchema: { type: "object" },
  messages: [{ role: "user", content: "hi" }],
};

describe("promptHash", () => {
  it("is the sha256 hex of the canonical messages and schema name", () => {
    expect(promptHash(base)).toMatch(/^[0-9a-f]{64}$/);
    // Key order in the message objects does not matter.
    const reordered = { ...base, messages: [{ content: "hi", role: "user" as const }] };
    expect(promptHash(reordered)).toBe(promptHash(base));
  });

  it("ignores the key, schema body and temperature, but not the messages or schema name", () => {
    expect(promptHash({ ...base, key: { nodeId: "b", kind: "x", attempt: 9 }, jsonSchema: {}, temperature: 1 })).toBe(promptHash(base));
    expect(promptHash({ ...base, schemaName: "other" })).not.toBe(promptHash(base));
    expect(promptHash({ ...base, messages: [{ role: "user", content: "hi!" }] })).not.toBe(promptHash(base));
  });
});

describe("createRequestKeys", () => {
  it("counts attempts from 1 per node and kind", () => {
    const keys = createRequestKeys();
    expect(keys.next("a", "tests").attempt).toBe(1);
    expect(keys.next("a", "tests").attempt).toBe(2);
    expect(keys.next("a", "implementation").attempt).toBe(1);
    expect(keys.next("b", "tests")).toEqual({ nodeId: "b", kind: "tests", attempt: 1 });
  });
});
