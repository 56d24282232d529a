import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRecordingProvider, createReplayProvider, loadCassette } from "../../src/llm/cassette.js";
import { createOpenAiProvider } from "../../src/llm/openai-provider.js";
import { promptHash, type ModelRequest } from "../../src/llm/provider.js";
import { createRequestKeys } from "../../src/llm/request-keys.js";
import { askStructured, strictJsonSchema } from "../../src/llm/structured.js";
import { errorReply, startScriptedOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { failure } from "../helpers/errors.js";

const tempDir = useTempDirs();
const servers: FakeOpenAi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const TestsSchema = z.object({ tests: z.array(z.string()) });
const requestFor = (nodeId: string, kind: string, attempt: number, prompt = `Write tests for ${nodeId}.`): ModelRequest => ({
  key: { nodeId, kind, attempt },
  schemaName: "tests_reply",
  jsonSchema: strictJsonSchema(TestsSchema),
  messages: [{ role: "user", content: prompt }],
});

/** Records a cassette for two nodes, one of them repaired once, against the fake server. */
async function record(file: string) {
  const server = await startScriptedOpenAi([
    { content: '{"tests":["test_mean"]}', usage: { prompt_tokens: 100, completion_tokens: 10 } },
    { content: "oops" },
    { content: '{"tests":["test_median"]}' },
  ]);
  servers.push(server);
  const recorder = createRecordingProvider(createOpenAiProvider({ apiKey: "sk-test", baseURL: server.url, model: "m" }), file);
  return run(recorder);
}

async function run(provider: Parameters<typeof askStructured>[0]) {
  const keys = createRequestKeys();
  const ask = (nodeId: string) =>
    askStructured(provider, { ...requestFor(nodeId, "tests", 0), key: keys.next(nodeId, "tests") }, TestsSchema, {
      nextAttempt: () => keys.next(nodeId, "tests").attempt,
    });
  return [await ask("stats.mean"), await ask("stats.median")];
}

describe("cassettes", () => {
  it("replays offline the values a recording run got from the server", async () => {
    const file = join(tempDir(), "runs", "cassette.jsonl");
    const recorded = await record(file);

    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l["key"])).toEqual([
      { node_id: "stats.mean", kind: "tests", attempt: 1 },
      { node_id: "stats.median", kind: "tests", attempt: 1 },
      { node_id: "stats.median", kind: "tests", attempt: 2 },
    ]);
    expect(lines[0]).toMatchObject({
      prompt_sha256: promptHash(requestFor("stats.mean", "tests", 1)),
      response: { content: '{"tests":["test_mean"]}' },
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    });

    const replayed = await run(createReplayProvider(await loadCassette(file), { strict: true }));
    expect(replayed.map((r) => (r.ok ? r.value : r.reason))).toEqual([{ tests: ["test_mean"] }, { tests: ["test_median"] }]);
    expect(replayed.map((r) => r.usage)).toEqual(recorded.map((r) => r.usage));
  });

  it("records a node-level failure and replays it as one", async () => {
    const server = await startScriptedOpenAi([errorReply(400, "prompt too long")]);
    servers.push(server);
    const file = join(tempDir(), "c.jsonl");
    const recorder = createRecordingProvider(createOpenAiProvider({ apiKey: "sk-test", baseURL: server.url, model: "m" }), file);
    const request = requestFor("a", "tests", 1);

    const live = await recorder.complete(request);
    const replayed = await createReplayProvider(await loadCassette(file)).complete(request);

    expect(live).toMatchObject({ ok: false, reason: expect.stringContaining("prompt too long") });
    expect(replayed).toEqual({
      ok: false,
      reason: live.ok ? "" : live.reason,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    });
  });

  it("does not record run-level errors", async () => {
    const server = await startScriptedOpenAi([errorReply(401, "bad key")]);
    servers.push(server);
    const file = join(tempDir(), "c.jsonl");
    const recorder = createRecordingProvider(createOpenAiProvider({ apiKey: "sk-test", baseURL: server.url, model: "m" }), file);

    expect((await failure(recorder.complete(requestFor("a", "tests", 1)))).code).toBe("MODEL_AUTH");
    await expect(readFile(file, "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("names the key of a request the cassette has no reply for", async () => {
    const file = join(tempDir(), "c.jsonl");
    await record(file);
    const replay = createReplayProvider(await loadCassette(file));

    await expect(replay.complete(requestFor("stats.mode", "implementation", 3))).resolves.toEqual({
      ok: false,
      reason: "cassette has no reply for node stats.mode, kind implementation, attempt 3",
      final: true,
    });
  });

  it("replays a changed prompt unless strict, which names the key and both hashes", async () => {
    const file = join(tempDir(), "c.jsonl");
    await record(file);
    const cassette = await loadCassette(file);
    const changed = requestFor("stats.mean", "tests", 1, "Write better tests for stats.mean.");

    await expect(createReplayProvider(cassette).complete(changed)).resolves.toMatchObject({ ok: true });
    const strict = await createReplayProvider(cassette, { strict: true }).complete(changed);
    expect(strict.ok).toBe(false);
    if (strict.ok) return;
    expect(strict.reason).toContain("node stats.mean, kind tests, attempt 1");
    expect(strict.reason).toContain(promptHash(requestFor("stats.mean", "tests", 1)));
    expect(strict.reason).toContain(promptHash(changed));
  });

  it("replays a hand-written line without prompt_sha256 unless strict, which names the key and the missing hash", async () => {
    const file = join(tempDir(), "c.jsonl");
    await writeFile(file, `${JSON.stringify({ key: { node_id: "a", kind: "k", attempt: 1 }, response: { content: "{}" } })}\n`);
    const cassette = await loadCassette(file);
    const request = requestFor("a", "k", 1);

    await expect(createReplayProvider(cassette).complete(request)).resolves.toMatchObject({ ok: true, content: "{}" });
    await expect(createReplayProvider(cassette, { strict: true }).complete(request)).resolves.toEqual({
      ok: false,
      reason: "cassette line 1 for node a, kind k, attempt 1 has no prompt_sha256 to check the prompt against (strict replay)",
      final: true,
    });
  });

  it("still refuses a malformed prompt_sha256 at load, naming the line and field", async () => {
    const file = join(tempDir(), "c.jsonl");
    await writeFile(
      file,
      `${JSON.stringify({ key: { node_id: "a", kind: "k", attempt: 1 }, prompt_sha256: "ABC", response: { content: "{}" } })}\n`,
    );

    const error = await failure(loadCassette(file));
    expect(error.code).toBe("CASSETTE_INVALID");
    expect(error.message).toBe("line 1 is not a recorded exchange: prompt_sha256: expected 64 lowercase hex digits");
    expect(error.at).toMatchObject({ file, line: 1, field: "prompt_sha256" });
  });

  it("lets a later line for the same key win", async () => {
    const file = join(tempDir(), "c.jsonl");
    const line = (content: string) =>
      JSON.stringify({ key: { node_id: "a", kind: "k", attempt: 1 }, prompt_sha256: "0".repeat(64), response: { content } });
    await writeFile(file, `${line("old")}\n\n${line("new")}\n`);

    await expect(createReplayProvider(await loadCassette(file)).complete(requestFor("a", "k", 1))).resolves.toMatchObject({
      content: "new",
    });
  });

  it("rejects a line that is not JSON, naming the file and line number", async () => {
    const file = join(tempDir(), "c.jsonl");
    const good = JSON.stringify({
      key: { node_id: "a", kind: "k", attempt: 1 },
      prompt_sha256: "0".repeat(64),
      response: { content: "{}" },
    });
    await writeFile(file, `${good}\n${good}\n{"key": \n`);

    const error = await failure(loadCassette(file));
    expect(error.code).toBe("CASSETTE_INVALID");
    expect(error.message).toContain("line 3");
    expect(error.at).toMatchObject({ file, line: 3 });
  });

  it("rejects a line of the wrong shape, naming the line and field", async () => {
    const file = join(tempDir(), "c.jsonl");
    await writeFile(file, `${JSON.stringify({ key: { node_id: "a", kind: "k", attempt: 0 }, prompt_sha256: "x", response: {} })}\n`);

    const error = await failure(loadCassette(file));
    expect(error.code).toBe("CASSETTE_INVALID");
    expect(error.message).toMatch(/^line 1 is not a recorded exchange: .*key\.attempt/);
    expect(error.at).toMatchObject({ file, line: 1, field: "key.attempt" });
  });

  it("reports a missing cassette as CASSETTE_NOT_FOUND", async () => {
    const file = join(tempDir(), "missing.jsonl");

    const error = await failure(loadCassette(file));
    expect(error.code).toBe("CASSETTE_NOT_FOUND");
    expect(error.at.file).toBe(file);
  });

  it("reports an unwritable cassette as CASSETTE_WRITE_FAILED", async () => {
    const dir = tempDir();
    const server = await startScriptedOpenAi([{ content: "{}" }]);
    servers.push(server);
    // A directory where the file should be makes the append fail.
    const recorder = createRecordingProvider(createOpenAiProvider({ apiKey: "sk-test", baseURL: server.url, model: "m" }), dir);

    expect((await failure(recorder.complete(requestFor("a", "k", 1)))).code).toBe("CASSETTE_WRITE_FAILED");
  });
});
