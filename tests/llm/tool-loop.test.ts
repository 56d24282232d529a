import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRecordingProvider, createReplayProvider, loadCassette } from "../../src/llm/cassette.js";
import { createOpenAiProvider } from "../../src/llm/openai-provider.js";
import type { ModelProvider, ModelRequest, ToolCall } from "../../src/llm/provider.js";
import { createRequestKeys } from "../../src/llm/request-keys.js";
import { strictJsonSchema } from "../../src/llm/structured.js";
import { askWithTools, type ToolBox } from "../../src/llm/tool-loop.js";
import { errorReply, startScriptedOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { useTempDirs } from "../helpers/temp-dir.js";

/**
 * Issue 18's tool calls, at the transport: the model may call read-only tools before it answers; each call runs,
 * its answer goes back as a tool turn, and every round is a request of its own, recorded in a cassette and
 * replayed offline. An endpoint without tools says so once, and the caller inlines the context instead.
 */
const tempDir = useTempDirs();
const servers: FakeOpenAi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const FixSchema = z.object({ code: z.string() });
const request = (): ModelRequest => ({
  key: { nodeId: "stats.mean", kind: "fix", attempt: 1 },
  schemaName: "rpg_forge_fix",
  jsonSchema: strictJsonSchema(FixSchema),
  messages: [{ role: "user", content: "Fix mean." }],
});
const searchCall: ToolCall = { id: "call_1", name: "search_rpg", arguments: '{"query":"validate numbers"}' };
const answer = { content: JSON.stringify({ code: "def mean(xs):\n    return sum(xs) / len(xs)\n" }) };

/** A toolbox with one tool, search_rpg, that records what it was asked. */
function toolbox(asked: string[] = []): ToolBox {
  return {
    specs: [
      {
        name: "search_rpg",
        description: "Search the RPG's nodes.",
        parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false },
      },
    ],
    run: async (call) => {
      asked.push(call.arguments);
      return call.name === "search_rpg" ? "stats.validate (ensure_numbers): 0.91" : `no tool ${call.name}`;
    },
  };
}

async function ask(provider: ModelProvider, tools = toolbox(), maxRounds?: number) {
  const keys = createRequestKeys();
  keys.next("stats.mean", "fix");
  return askWithTools(provider, request(), FixSchema, tools, {
    nextAttempt: () => keys.next("stats.mean", "fix").attempt,
    ...(maxRounds === undefined ? {} : { maxRounds }),
  });
}

const live = (server: FakeOpenAi): ModelProvider =>
  createOpenAiProvider({ apiKey: "sk-test", baseURL: server.url, model: "m", maxRetries: 0 });

describe("askWithTools", () => {
  it("runs the tools the model calls, sends their answers back as tool turns, and parses the answer", async () => {
    const server = await startScriptedOpenAi([{ toolCalls: [searchCall] }, answer]);
    servers.push(server);
    const asked: string[] = [];
    const result = await ask(live(server), toolbox(asked));
    expect(result).toMatchObject({ ok: true, value: { code: expect.stringContaining("def mean") }, toolCalls: 1 });
    expect(asked).toEqual(['{"query":"validate numbers"}']);
    const [first, second] = server.requests.map((r) => r.body);
    expect(first!.tools).toEqual([
      expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "search_rpg" }) }),
    ]);
    expect(second!.messages).toEqual([
      { role: "user", content: "Fix mean." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "search_rpg", arguments: '{"query":"validate numbers"}' } }],
      },
      { role: "tool", content: "stats.validate (ensure_numbers): 0.91", tool_call_id: "call_1" },
    ]);
    expect(result.exchanges.map((e) => e.request.key.attempt)).toEqual([1, 2]);
  });

  it("records every round, tool calls included, and replays them offline and strictly, running the tools again", async () => {
    const server = await startScriptedOpenAi([{ toolCalls: [searchCall] }, answer]);
    servers.push(server);
    const file = join(tempDir(), "run.jsonl");
    const recorded = await ask(createRecordingProvider(live(server), file));
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { response: { tool_calls?: ToolCall[] } });
    expect(lines[0]!.response.tool_calls).toEqual([searchCall]);

    const asked: string[] = [];
    const replayed = await ask(createReplayProvider(await loadCassette(file), { strict: true }), toolbox(asked));
    expect(replayed).toMatchObject({ ok: true, toolCalls: 1 });
    expect(replayed.ok && recorded.ok && replayed.value).toEqual(recorded.ok && recorded.value);
    expect(asked).toHaveLength(1);
  });

  it("asks for an answer without more calls once the rounds are spent", async () => {
    const server = await startScriptedOpenAi([{ toolCalls: [searchCall] }, { toolCalls: [{ ...searchCall, id: "call_2" }] }, answer]);
    servers.push(server);
    const result = await ask(live(server), toolbox(), 2);
    expect(result).toMatchObject({ ok: true, toolCalls: 2 });
    const last = server.requests.at(-1)!.body;
    expect(last.tool_choice).toBe("none");
    expect(JSON.stringify(last.messages)).toContain("Answer now, with only the JSON object");
  });

  it("reports an endpoint that takes no tools, once, and asks it no more with tools", async () => {
    const server = await startScriptedOpenAi([errorReply(400, "tools is not supported by this model", { param: "tools" })]);
    servers.push(server);
    const provider = live(server);
    expect(await ask(provider)).toMatchObject({ ok: false, toolsRefused: true, reason: expect.stringContaining("takes no tools") });
    expect(await ask(provider)).toMatchObject({ ok: false, toolsRefused: true });
    expect(server.requests).toHaveLength(1);
  });
});
