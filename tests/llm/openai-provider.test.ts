import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOpenAiProvider } from "../../src/llm/openai-provider.js";
import type { ModelRequest } from "../../src/llm/provider.js";
import { strictJsonSchema } from "../../src/llm/structured.js";
import { closedPortUrl, errorReply, startFakeOpenAi, startScriptedOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { failure } from "../helpers/errors.js";

const KEY = "sk-test-0123456789abcdefSECRET";
const servers: FakeOpenAi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const track = (server: FakeOpenAi): FakeOpenAi => (servers.push(server), server);

const TestsReplySchema = z.object({ tests: z.array(z.object({ name: z.string(), code: z.string() })) });
const request: ModelRequest = {
  key: { nodeId: "stats.mean", kind: "tests", attempt: 1 },
  schemaName: "tests_reply",
  jsonSchema: strictJsonSchema(TestsReplySchema),
  messages: [
    { role: "system", content: "You write pytest tests." },
    { role: "user", content: "Test mean(xs)." },
  ],
  temperature: 0.2,
};

describe("createOpenAiProvider", () => {
  it("sends the messages with a strict json_schema response format and returns the content and usage", async () => {
    const server = track(await startScriptedOpenAi([{ content: '{"tests":[]}', usage: { prompt_tokens: 120, completion_tokens: 30 } }]));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "gpt-4o-mini" });

    const response = await provider.complete(request);

    expect(response).toEqual({ ok: true, content: '{"tests":[]}', usage: { promptTokens: 120, completionTokens: 30, totalTokens: 150 } });
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toMatchObject({ model: "gpt-4o-mini", messages: request.messages, temperature: 0.2 });
    expect(sent.body["response_format"]).toEqual({
      type: "json_schema",
      json_schema: { name: "tests_reply", schema: request.jsonSchema, strict: true },
    });
    expect(provider.description).toBe(`gpt-4o-mini at ${server.url}`);
  });

  it("retries a 429 and succeeds with the second reply", async () => {
    const server = track(await startScriptedOpenAi([errorReply(429, "Rate limit reached", { type: "requests" }), { content: "{}" }]));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });

    await expect(provider.complete(request)).resolves.toMatchObject({ ok: true, content: "{}" });
    expect(server.requests).toHaveLength(2);
  });

  it("retries 500 twice and succeeds with the third reply", async () => {
    const server = track(
      await startScriptedOpenAi([errorReply(500, "The server had an error"), errorReply(502, "Bad gateway"), { content: "{}" }]),
    );
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });

    await expect(provider.complete(request)).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(3);
  });

  it("honours retry-after: 0 from the server", async () => {
    const server = track(
      await startScriptedOpenAi([{ ...errorReply(503, "overloaded"), headers: { "retry-after": "0" } }, { content: "{}" }]),
    );
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });
    const started = Date.now();

    await expect(provider.complete(request)).resolves.toMatchObject({ ok: true });
    expect(Date.now() - started).toBeLessThan(400); // the SDK's own backoff would wait ≥ 375 ms
  });

  it("throws MODEL_UNAVAILABLE with the status once the retries are spent", async () => {
    const server = track(await startFakeOpenAi(() => errorReply(503, "overloaded")));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m", maxRetries: 2 });

    const error = await failure(provider.complete(request));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain("503");
    expect(error.message).toContain("after 2 retries");
    expect(server.requests).toHaveLength(3);
  });

  it("throws MODEL_AUTH on 401 without ever showing the key, even when the server echoes it", async () => {
    const server = track(await startFakeOpenAi(() => errorReply(401, `Incorrect API key provided: ${KEY}.`, { code: "invalid_api_key" })));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });

    const error = await failure(provider.complete(request));
    expect(error.code).toBe("MODEL_AUTH");
    expect(error.message).toContain("the model endpoint refused the key");
    expect(error.hint).toContain("OPENAI_API_KEY");
    expect(error.hint).toContain("OPENAI_BASE_URL");
    const everything = [error.message, error.hint, String(error.cause), (error.cause as Error).message, JSON.stringify(error)].join("\n");
    expect(everything).not.toContain(KEY);
    expect(server.requests).toHaveLength(1); // 401 is not retried
  });

  it("throws MODEL_AUTH on 403", async () => {
    const server = track(await startFakeOpenAi(() => errorReply(403, "Project does not have access")));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });

    expect((await failure(provider.complete(request))).code).toBe("MODEL_AUTH");
  });

  it("throws MODEL_NOT_FOUND naming the model on 404", async () => {
    const server = track(await startFakeOpenAi(() => errorReply(404, "The model `gpt-9` does not exist", { code: "model_not_found" })));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "gpt-9" });

    const error = await failure(provider.complete(request));
    expect(error.code).toBe("MODEL_NOT_FOUND");
    expect(error.message).toContain('"gpt-9"');
  });

  it("fails only the request on 400, with the server's message", async () => {
    const server = track(await startFakeOpenAi(() => errorReply(400, "Invalid schema for response_format 'tests_reply'")));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });

    const response = await provider.complete(request);
    expect(response).toEqual({ ok: false, reason: expect.stringContaining("Invalid schema for response_format 'tests_reply'") });
    expect(server.requests).toHaveLength(1);
  });

  it("asks again without a temperature the model refuses, and sends none after that", async () => {
    // OpenAI's answer for a model that takes only its default temperature.
    const refusal = errorReply(400, "Unsupported value: 'temperature' does not support 0.2 with this model.", { param: "temperature" });
    const server = track(await startScriptedOpenAi([refusal, { content: "{}" }, { content: "{}" }]));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "o-mini", maxRetries: 0 });

    await expect(provider.complete(request)).resolves.toMatchObject({ ok: true, content: "{}" });
    await expect(provider.complete({ ...request, temperature: 0.7 })).resolves.toMatchObject({ ok: true });
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0.2, undefined, undefined]);
  });

  it("keeps the temperature when a 400 is about something else", async () => {
    const server = track(await startFakeOpenAi(() => errorReply(400, "Invalid schema for response_format 'tests_reply'")));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m", maxRetries: 0 });

    await expect(provider.complete(request)).resolves.toMatchObject({ ok: false });
    await provider.complete(request);
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0.2, 0.2]);
  });

  it("throws MODEL_UNREACHABLE naming the base URL when nothing listens", async () => {
    const url = await closedPortUrl();
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: url, model: "m", maxRetries: 0 });
    const started = Date.now();

    const error = await failure(provider.complete(request));
    expect(error.code).toBe("MODEL_UNREACHABLE");
    expect(error.message).toContain(url);
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.hint).toContain("OPENAI_BASE_URL");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("throws MODEL_UNAVAILABLE when a call outlasts timeoutMs", async () => {
    const server = track(await startFakeOpenAi(() => ({ content: "{}", delayMs: 2_000 })));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m", timeoutMs: 100, maxRetries: 0 });
    const started = Date.now();

    const error = await failure(provider.complete(request));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain("did not answer within 0.1 s");
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("retries a timed-out call", async () => {
    let calls = 0;
    const server = track(await startFakeOpenAi(() => (++calls === 1 ? { content: "{}", delayMs: 2_000 } : { content: '{"late":false}' })));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m", timeoutMs: 150, maxRetries: 1 });

    await expect(provider.complete(request)).resolves.toMatchObject({ ok: true, content: '{"late":false}' });
    expect(server.requests).toHaveLength(2);
  });

  it("fails only the request on a refusal or an empty reply", async () => {
    const server = track(
      await startScriptedOpenAi([{ refusal: "I can't help with that." }, { content: "" }, { content: null, finishReason: "length" }]),
    );
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });

    await expect(provider.complete(request)).resolves.toMatchObject({ ok: false, reason: "the model refused: I can't help with that." });
    await expect(provider.complete(request)).resolves.toMatchObject({ ok: false, reason: expect.stringContaining("empty reply") });
    await expect(provider.complete(request)).resolves.toMatchObject({ ok: false, reason: expect.stringContaining("finish_reason length") });
  });

  it("reports zero usage when the server sends none", async () => {
    const server = track(await startScriptedOpenAi([{ content: "{}", usage: null }]));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });

    await expect(provider.complete(request)).resolves.toEqual({
      ok: true,
      content: "{}",
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    });
  });

  it("rejects with the abort reason when the caller aborts", async () => {
    const server = track(await startFakeOpenAi(() => ({ content: "{}", delayMs: 2_000 })));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });
    const controller = new AbortController();
    const reason = new Error("run interrupted");
    setTimeout(() => controller.abort(reason), 50);

    await expect(provider.complete(request, controller.signal)).rejects.toBe(reason);
  });

  it("leaves no listener on the run's signal after its calls, however many", async () => {
    const server = track(await startFakeOpenAi(() => ({ content: "{}" })));
    const provider = createOpenAiProvider({ apiKey: KEY, baseURL: server.url, model: "m" });
    const run = new AbortController();
    for (let i = 0; i < 12; i++) await provider.complete(request, run.signal);
    expect(getEventListeners(run.signal, "abort")).toEqual([]);
  });
});
