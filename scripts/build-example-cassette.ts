// Rebuilds examples/statkit/cassette.jsonl from the replies in
// scripts/example-statkit/replies.ts by running the real engine against them and
// recording every exchange, so the cassette holds the exact requests rpg-forge makes
// (and their prompt hashes, for --replay-strict). Run after changing a prompt:
//   npx tsx scripts/build-example-cassette.ts
import { mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "../src/engine/generate.js";
import { rpgHash } from "../src/engine/run-id.js";
import { createRecordingProvider } from "../src/llm/cassette.js";
import { estimateTokens } from "../src/llm/redact.js";
import type { ModelProvider, ToolCall } from "../src/llm/provider.js";
import { committedReport } from "../src/report/generation-report.js";
import { parseRpgText } from "../src/rpg/load.js";
import { INTEGRATION_REPLIES } from "./example-statkit/integration-replies.js";
import { REPLIES } from "./example-statkit/replies.js";

const RPG = "examples/statkit/rpg.json";
const CASSETTE = "examples/statkit/cassette.jsonl";
const EXPECTED = { failed: ["report.format_number"], skipped: ["report.describe_text", "report.format_summary"] };

/**
 * The fix requests that look around with tools first (decision 0030), by node: one round of calls, then the fix. Only
 * tools whose answers are the same on every machine (the code view and the offline search, not the language server).
 */
const TOOL_ROUNDS: Record<string, ToolCall[]> = {
  "stats.median": [
    { id: "call_1", name: "view_code", arguments: JSON.stringify({ node_id: "validation.ensure_numbers" }) },
    { id: "call_2", name: "search_rpg", arguments: JSON.stringify({ query: "middle value of the sorted numbers" }) },
  ],
};
/** Tool rounds answered so far, by node: a fix's reply is its attempt less these. */
const toolRounds = new Map<string, number>();

const scripted: ModelProvider = {
  description: "scripted replies for the statkit example",
  async complete(request) {
    const replies = REPLIES[request.key.nodeId];
    const { kind } = request.key;
    const calls = TOOL_ROUNDS[request.key.nodeId];
    const called = request.messages.some((m) => m.role === "tool");
    if (kind === "fix" && request.tools && calls && !called && !toolRounds.has(request.key.nodeId)) {
      toolRounds.set(request.key.nodeId, 1);
      return {
        ok: true,
        content: "",
        toolCalls: calls,
        usage: { promptTokens: estimateTokens(request.messages), completionTokens: 40, totalTokens: estimateTokens(request.messages) + 40 },
      };
    }
    const attempt = kind === "fix" ? request.key.attempt - (toolRounds.get(request.key.nodeId) ?? 0) : request.key.attempt;
    const reply =
      kind === "tests" && attempt === 1
        ? { test_code: replies?.tests, notes: "Happy path, edge and error cases from the docstring, and its examples." }
        : kind === "implementation" && attempt === 1
          ? replies?.implementation
          : kind === "fix"
            ? replies?.fixes?.[attempt - 1]
            : kind === "diagnosis"
              ? replies?.votes?.[attempt - 1]
              : kind === "integration_tests" && attempt === 1
                ? INTEGRATION_REPLIES[request.key.nodeId]
                : undefined;
    if (!reply || ("test_code" in reply && reply.test_code === undefined)) {
      return { ok: false, reason: `no scripted reply for ${request.key.nodeId} ${kind} ${attempt}`, final: true };
    }
    const content = JSON.stringify(reply);
    const promptTokens = estimateTokens(request.messages);
    const completionTokens = Math.ceil(content.length / 4);
    return { ok: true, content, usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens } };
  },
};

const text = await readFile(RPG, "utf8");
const loaded = parseRpgText(text, RPG);
if (!loaded.ok) throw new Error(`${RPG} is invalid`);
const out = await mkdtemp(join(tmpdir(), "rpg-forge-cassette-"));
const recording = join(out, "cassette.jsonl");
try {
  const result = await generate({
    rpg: loaded.value,
    rpgPath: RPG,
    rpgSha256: rpgHash(text),
    outDir: join(out, "package"),
    provider: createRecordingProvider(scripted, recording),
    model: "scripted",
    mode: "new",
    renderCommittedReport: committedReport,
    onEvent: (e) => {
      if (e.type === "node-finished") console.error(`${e.status.padEnd(7)} ${e.nodeId}${e.reason ? `: ${e.reason}` : ""}`);
    },
  });
  const failed = result.summary.failed.map((f) => f.id);
  const skipped = result.summary.skipped.map((s) => s.id).sort();
  if (JSON.stringify({ failed, skipped }) !== JSON.stringify(EXPECTED)) {
    throw new Error(`the example no longer shows what its README promises: ${JSON.stringify({ failed, skipped })}`);
  }
  await rename(recording, CASSETTE);
  console.error(`wrote ${CASSETTE}`);
} finally {
  await rm(out, { recursive: true, force: true });
}
