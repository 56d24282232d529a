import { readFileSync } from "node:fs";
import { join } from "node:path";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/engine/events.js";
import { generate } from "../../src/engine/generate.js";
import { rpgHash } from "../../src/engine/run-id.js";
import type { ModelProvider } from "../../src/llm/provider.js";
import { selectProvider } from "../../src/llm/select.js";
import { committedReport } from "../../src/report/generation-report.js";
import { writeRunReport } from "../../src/report/run-report.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const EXAMPLE = fileURLToPath(new URL("../../examples/statkit/", import.meta.url));

describe("generate with a concurrency of 3", () => {
  it("generates the example with nodes side by side, to the same result as one at a time", async () => {
    const text = readFileSync(join(EXAMPLE, "rpg.json"), "utf8");
    const loaded = parseRpgText(text, "rpg.json");
    if (!loaded.ok) throw new Error("the example is invalid");
    // Replay by node, kind and attempt: the same replies whatever the order.
    const { provider: replay, model } = await selectProvider({ replay: join(EXAMPLE, "cassette.jsonl") }, {});
    // Decision 0029: the concurrency is what the endpoint gets, however many nodes are in flight.
    let asking = 0;
    let mostAsking = 0;
    const provider: ModelProvider = {
      description: replay.description,
      complete: async (request, signal) => {
        mostAsking = Math.max(mostAsking, ++asking);
        try {
          // A reply takes a moment, as a live one would: requests would pile up if nothing held them back.
          await new Promise((resolve) => setTimeout(resolve, 5));
          return await replay.complete(request, signal);
        } finally {
          asking--;
        }
      },
    };
    const events: RunEvent[] = [];
    let running = 0;
    let most = 0;
    const out = tempDir();
    const result = await generate({
      rpg: loaded.value,
      rpgPath: join(EXAMPLE, "rpg.json"),
      rpgSha256: rpgHash(text),
      outDir: out,
      provider,
      model,
      mode: "new",
      concurrency: 3,
      // What runs in parallel and the order of its progress lines are the point; a passed node's mutant runs are not.
      mutants: 0,
      // Nor the language server's answers, which Python's parser gives too (tests/lsp has pyright's): a second of CPU to start it.
      languageServer: false,
      renderCommittedReport: committedReport,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "node-started") most = Math.max(most, ++running);
        if (event.type === "node-finished" && event.iterations !== undefined) running--;
      },
    });
    expect(most).toBeGreaterThan(1);
    // Nodes run their tests while others wait on the model: up to a core's worth more in flight than requests.
    expect(most).toBeLessThanOrEqual(3 + availableParallelism());
    expect(mostAsking).toBeGreaterThan(1);
    expect(mostAsking).toBeLessThanOrEqual(3);
    expect(result.summary.counts).toMatchObject({ total: 14, passed: 11, failed: 1, skipped: 2 });
    expect(result.summary.failed.map((f) => f.id)).toEqual(["report.format_number"]);
    const { path } = await writeRunReport(out, { ...result, rpgPath: join(EXAMPLE, "rpg.json"), model });
    const report = readFileSync(path, "utf8");
    expect(report).toMatch(/\*\*Nodes Passed\*\*: 11/);
    // Issue 16: progress reads in the order things happen. A subgraph is committed after the line of
    // every one of its nodes, however the nodes side by side finished.
    const lines = events.flatMap((e) =>
      e.type === "node-finished" ? [`node ${e.nodeId}`] : e.type === "subgraph-committed" ? [`commit ${e.subgraphId}`] : [],
    );
    const commits = lines.filter((l) => l.startsWith("commit "));
    expect(commits).toEqual(["commit validation", "commit stats", "commit report"]);
    for (const subgraph of loaded.value.nodes.map((n) => n.subgraph_id)) {
      const committedAt = lines.indexOf(`commit ${subgraph}`);
      for (const node of loaded.value.nodes.filter((n) => n.subgraph_id === subgraph && n.node_type === "leaf"))
        expect(lines.indexOf(`node ${node.id}`), `${node.id}'s line before ${subgraph}'s commit`).toBeLessThan(committedAt);
    }
  }, 180_000);
});
