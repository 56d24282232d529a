import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOpenAiProvider } from "../../src/llm/openai-provider.js";
import type { ModelRequest } from "../../src/llm/provider.js";
import { createRequestKeys } from "../../src/llm/request-keys.js";
import { askStructured, strictJsonSchema } from "../../src/llm/structured.js";
import { errorReply, startScriptedOpenAi, type FakeOpenAi, type FakeReply, type RawReply } from "../helpers/fake-openai-server.js";

const servers: FakeOpenAi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const ImplementationSchema = z.object({ code: z.string().min(1), imports: z.array(z.string()) });
const GOOD = '{"code":"def mean(xs):\\n    return sum(xs) / len(xs)","imports":[]}';

async function setUp(replies: Array<FakeReply | RawReply>) {
  const server = await startScriptedOpenAi(replies);
  servers.push(server);
  const provider = createOpenAiProvider({ apiKey: "sk-test", baseURL: server.url, model: "m" });
  const keys = createRequestKeys();
  const request: ModelRequest = {
    key: keys.next("stats.mean", "implementation"),
    schemaName: "implementation",
    jsonSchema: strictJsonSchema(ImplementationSchema),
    messages: [{ role: "user", content: "Implement mean(xs)." }],
  };
  const nextAttempt = () => keys.next("stats.mean", "implementation").attempt;
  return { server, provider, request, nextAttempt, keys };
}

const userMessages = (body: Record<string, unknown>) =>
  (body["messages"] as Array<{ role: string; content: string }>).filter((m) => m.role === "user").map((m) => m.content);

describe("askStructured", () => {
  it("returns the parsed value, the usage and the one exchange", async () => {
    const { provider, request, nextAttempt } = await setUp([{ content: GOOD, usage: { prompt_tokens: 50, completion_tokens: 20 } }]);

    const result = await askStructured(provider, request, ImplementationSchema, { nextAttempt });

    expect(result).toMatchObject({ ok: true, value: { imports: [] }, usage: { promptTokens: 50, completionTokens: 20, totalTokens: 70 } });
    expect(result.exchanges).toEqual([{ request, response: { ok: true, content: GOOD, usage: expect.any(Object) } }]);
  });

  it("repairs a reply that is not JSON by sending the parse error back, then succeeds", async () => {
    const { server, provider, request, nextAttempt, keys } = await setUp([
      { content: "Sure! Here is the code: def mean" },
      { content: GOOD },
    ]);

    const result = await askStructured(provider, request, ImplementationSchema, { nextAttempt });

    expect(result.ok).toBe(true);
    expect(result.usage.totalTokens).toBe(36); // two default usages of 18
    expect(server.requests).toHaveLength(2);
    const repair = server.requests[1]!.body;
    expect(repair["messages"]).toContainEqual({ role: "assistant", content: "Sure! Here is the code: def mean" });
    expect(userMessages(repair).at(-1)).toMatch(/not valid JSON/);
    expect(result.exchanges.map((e) => e.request.key)).toEqual([
      { nodeId: "stats.mean", kind: "implementation", attempt: 1 },
      { nodeId: "stats.mean", kind: "implementation", attempt: 2 },
    ]);
    expect(result.exchanges[0]!.error).toMatch(/not valid JSON/);
    expect(result.exchanges[1]!.error).toBeUndefined();
    // The repair drew from the run's counter, so the next first request does not reuse its key.
    expect(keys.next("stats.mean", "implementation").attempt).toBe(3);
  });

  it("repairs JSON that fails the schema by naming the failing field, then succeeds", async () => {
    const { server, provider, request, nextAttempt } = await setUp([{ content: '{"code":"","imports":"math"}' }, { content: GOOD }]);

    const result = await askStructured(provider, request, ImplementationSchema, { nextAttempt });

    expect(result.ok).toBe(true);
    const feedback = userMessages(server.requests[1]!.body).at(-1)!;
    expect(feedback).toContain("does not match the schema");
    expect(feedback).toContain("imports");
    expect(feedback).toContain("code");
  });

  it("returns ok:false with the reason when the repair fails too", async () => {
    const { server, provider, request, nextAttempt } = await setUp([{ content: "not json" }, { content: '{"code":"x"}' }]);

    const result = await askStructured(provider, request, ImplementationSchema, { nextAttempt });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toMatch(/^node stats\.mean, kind implementation, attempt 2: the reply does not match the schema/);
    expect(result.reason).toContain("(after 1 repair)");
    expect(result.exchanges).toHaveLength(2);
    expect(result.usage.totalTokens).toBe(36);
    expect(server.requests).toHaveLength(2);
  });

  it("sends as many repairs as configured, carrying the whole conversation", async () => {
    const { server, provider, request, nextAttempt } = await setUp([{ content: "a" }, { content: "b" }, { content: GOOD }]);

    const result = await askStructured(provider, request, ImplementationSchema, { nextAttempt, repairs: 2 });

    expect(result.ok).toBe(true);
    expect((server.requests[2]!.body["messages"] as unknown[]).length).toBe(5);
  });

  it("does not repair when repairs is 0", async () => {
    const { server, provider, request } = await setUp([{ content: "not json" }]);

    const result = await askStructured(provider, request, ImplementationSchema, { repairs: 0 });

    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining("not valid JSON") });
    expect(server.requests).toHaveLength(1);
  });

  it("does not repair a request the endpoint rejected", async () => {
    const { server, provider, request, nextAttempt } = await setUp([errorReply(400, "context_length_exceeded")]);

    const result = await askStructured(provider, request, ImplementationSchema, { nextAttempt });

    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining("context_length_exceeded") });
    expect(server.requests).toHaveLength(1);
  });

  it("refuses to start without an attempt allocator when repairs are allowed", async () => {
    const { provider, request } = await setUp([]);

    await expect(askStructured(provider, request, ImplementationSchema)).rejects.toThrow(/nextAttempt/);
  });
});

describe("strictJsonSchema", () => {
  it("makes every property required and closes every object", () => {
    const schema = strictJsonSchema(z.object({ a: z.string(), b: z.object({ c: z.number().nullable() }) }));

    expect(schema).toMatchObject({
      type: "object",
      required: ["a", "b"],
      additionalProperties: false,
      properties: { b: { type: "object", required: ["c"], additionalProperties: false } },
    });
  });

  it("throws for a schema strict mode cannot express", () => {
    expect(() => strictJsonSchema(z.object({ a: z.string().optional() }))).toThrow(/strict mode.*optional/s);
    expect(() => strictJsonSchema(z.object({ a: z.record(z.string(), z.string()) }))).toThrow(/strict mode/);
    expect(() => strictJsonSchema(z.array(z.string()))).toThrow(/strict mode/);
  });
});
