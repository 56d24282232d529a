import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runQualityBench, type QualityResult } from "../../bench/quality/run.js";
import { createOpenAiProvider } from "../../src/llm/openai-provider.js";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { kindOf, nodeOf } from "../helpers/scripted-model.js";

/**
 * `npm run bench:quality` against a local OpenAI-compatible server that answers as the example's model did: from
 * examples/statkit/cassette.jsonl, by node, kind and attempt. The planted faults' diagnoses are not in the
 * cassette; the server calls every one of them an implementation bug, so the implementation bugs are all
 * diagnosed right and the test issues all wrong, and the table must say exactly that.
 */
const CASSETTE = "examples/statkit/cassette.jsonl";

let fake: FakeOpenAi;
let result: QualityResult;
const lines: string[] = [];

beforeAll(async () => {
  const recorded = new Map<string, string>();
  for (const line of readFileSync(CASSETTE, "utf8").trim().split("\n")) {
    const entry = JSON.parse(line) as { key: { node_id: string; kind: string; attempt: number }; response?: { content?: string } };
    if (entry.response?.content !== undefined) recorded.set(JSON.stringify(entry.key), entry.response.content);
  }
  const counts = new Map<string, number>();
  fake = await startFakeOpenAi((body) => {
    const [node, kind] = [nodeOf(body), kindOf(body)];
    const attempt = (counts.get(`${node}/${kind}`) ?? 0) + 1;
    counts.set(`${node}/${kind}`, attempt);
    const content = recorded.get(JSON.stringify({ node_id: node, kind, attempt }));
    if (content !== undefined) return { content };
    if (kind === "diagnosis") return { content: JSON.stringify({ verdict: "implementation_bug", reason: "the code is wrong" }) };
    return { status: 400, body: { error: { message: `nothing recorded for ${node} ${kind} ${attempt}`, type: "invalid_request_error" } } };
  });
  result = await runQualityBench({
    rpgs: ["examples/statkit/rpg.json"],
    provider: createOpenAiProvider({ apiKey: "test-key", baseURL: fake.url, model: "fake-model", maxRetries: 0 }),
    model: "fake-model",
    plantIn: 2,
    votes: 3,
    concurrency: 2,
    log: (line) => lines.push(line),
  });
}, 300_000);

afterAll(async () => {
  await fake?.close();
});

describe("the quality bench", () => {
  it("prints the PRD's figures of the run beside the targets", () => {
    const [row] = result.rows;
    expect(row!.figures).toMatchObject({ leaves: 14, passed: 11, generated: 12, firstTry: 8, debugged: 4, debugPassed: 3 });
    expect(row!.figures.tokens).toBeGreaterThan(0);
    expect(result.table).toContain("| examples/statkit/rpg.json | 11 of 14 | 67% (8 of 12) | 75% (3 of 4) |");
    expect(result.table).toContain("| target | | ≥ 60% | ≥ 80% | | |");
    expect(lines).toContain("  failed  report.format_number");
  });

  it("plants an implementation bug and a test issue in each of two passed nodes, and scores the votes' decisions", () => {
    const planted = result.rows[0]!.planted;
    expect(planted.map((p) => p.planted)).toEqual(["implementation_bug", "test_issue", "implementation_bug", "test_issue"]);
    for (const p of planted) expect(p.votes).toHaveLength(3);
    expect(planted.filter((p) => p.planted === "test_issue").map((p) => p.fault)).toEqual([
      expect.stringMatching(/^line \d+: .+ became .+/),
      expect.stringMatching(/^line \d+: .+ became .+/),
    ]);
    expect(result.table).toContain(
      "Diagnosis accuracy on planted faults: 50% (2 of 4); implementation bugs 100% (2 of 2), test issues 0% (0 of 2).",
    );
    expect(result.table).toMatch(/- \S+: planted test_issue \(line \d+: .+\), decided implementation_bug/);
  });
});
