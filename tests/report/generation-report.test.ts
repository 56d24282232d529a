import { describe, expect, it } from "vitest";
import type { Checkpoint, CheckpointEntry } from "../../src/engine/checkpoint.js";
import { summarize } from "../../src/engine/summary.js";
import { buildPlan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { renderGenerationReport } from "../../src/report/generation-report.js";
import { renderMermaid } from "../../src/report/mermaid.js";
import { HOSTILE, HOSTILE_TEXT, livePayloads } from "../helpers/live-markdown.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { expectBalanced } from "./markdown-structure.js";

// Ids are any printable text; subgraph names are free text; reasons and warnings are the model's and pytest's words.
const failedId = `f ${HOSTILE.mention} ${HOSTILE.link}`;
const skippedId = `s ${HOSTILE.image} ${HOSTILE.comment}`;
const subgraphId = `core ${HOSTILE.tag}`;
const loaded = parseRpgText(
  text(
    rpgDoc(
      [
        leaf({ id: "ok", name: "ok", subgraph: subgraphId }),
        leaf({ id: failedId, name: "fails", subgraph: subgraphId }),
        leaf({ id: skippedId, name: "skipped", deps: [failedId], subgraph: subgraphId }),
      ],
      [],
      { subgraphs: [{ id: subgraphId, name: `Core ${HOSTILE_TEXT} \`x\`` }] },
    ),
  ),
  "rpg.json",
);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
const plan = buildPlan(loaded.value);

const entry = (status: CheckpointEntry["status"], extra: Partial<CheckpointEntry> = {}): CheckpointEntry => ({
  status,
  timestamp: "t",
  test_results: { passed: 1, failed: 0 },
  retry_count: 2,
  attempts: [],
  subgraph_id: subgraphId,
  node_type: "leaf",
  ...extra,
});
const checkpoint: Checkpoint = {
  version: 1,
  run_id: "r",
  rpg_sha256: "",
  created_at: "t",
  updated_at: "t",
  nodes: {
    ok: entry("passed"),
    [failedId]: entry("failed", { failure_reason: `I cannot do that. ${HOSTILE_TEXT}\n\n# Heading\n<details>` }),
    [skippedId]: entry("skipped", { blocked_by: [failedId] }),
  },
};

function report(): string {
  return renderGenerationReport({
    plan,
    checkpoint,
    summary: summarize(checkpoint),
    rpgPath: `rpg ${HOSTILE.mention}.json`,
    runId: "r",
    model: `model ${HOSTILE.link}`,
    generatedAt: new Date(0),
    elapsedMs: 1000,
    assembly: {
      warnings: [`left README.md alone: ${HOSTILE_TEXT}`],
      written: [],
      importCycles: [{ cycle: ["pkg.a", `pkg.${HOSTILE.tag}`, "pkg.a"], suggestion: `move it ${HOSTILE.link}` }],
      suite: { exitCode: 0, passed: 1, failed: 0, total: 1 },
    },
    gitLog: ["abc1234 feat: complete ```", HOSTILE.tag, "```", HOSTILE.comment],
  });
}

describe("docs/generation_report.md", () => {
  it("quotes ids, names, reasons, warnings and commit subjects inert", () => {
    const markdown = report();
    expect(livePayloads(markdown)).toEqual([]);
    expectBalanced(markdown);
  });

  it("still says what failed and why, quoted", () => {
    const markdown = report();
    expect(markdown).toContain("### `f @octocat [x](https://evil)`: `fails`");
    expect(markdown).toContain("- **Failure Reason**: I cannot do that. @\u200boctocat \\[x\\](https:\u200b//evil)");
    expect(markdown).toContain("- **Skipped Because of It**: `s ![i](https://evil/p.png) <!-- rpg-forge:marker -->`");
    expect(markdown).toContain("| `core <img src=x>` | 3 | 1 | 1 | 1 | 50% |");
  });

  it("keeps backticks and markup in subgraph names out of the chart's labels", () => {
    const chart = renderMermaid(plan);
    expect(chart).not.toMatch(/`|<img|<!--/);
    expect(chart).toContain("#lt;img src=x#gt; #96;x#96;");
  });
});
