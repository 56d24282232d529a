import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { renderMermaid } from "../../src/report/mermaid.js";
import { chain, leaf, rpgDoc, text } from "../helpers/rpg.js";

const planOf = (doc: unknown) => {
  const loaded = parseRpgText(text(doc), "rpg.json");
  if (!loaded.ok) throw new Error("invalid");
  return buildPlan(loaded.value);
};

describe("renderMermaid", () => {
  const plan = planOf(
    rpgDoc(
      [
        leaf({ id: "a", subgraph: "io", name: "read" }),
        leaf({ id: "b", subgraph: "core", deps: ["a"], name: "parse" }),
        leaf({ id: "c", subgraph: "core", deps: ["b"], name: "run" }),
      ],
      [],
      {
        subgraphs: [
          { id: "io", name: "Input/Output" },
          { id: "core", name: 'The "core"' },
        ],
      },
    ),
  );

  it("groups nodes by subgraph with arrows from dependency to dependent", () => {
    expect(renderMermaid(plan)).toMatchInlineSnapshot(`
      "flowchart TD
        subgraph s0["Input/Output"]
          n0["read<br/><small>a</small>"]
        end
        subgraph s1["The #quot;core#quot;"]
          n1["parse<br/><small>b</small>"]
          n2["run<br/><small>c</small>"]
        end
        n0 --> n1
        n1 --> n2
      "
    `);
  });

  it("colours nodes by status", () => {
    const statuses: Record<string, "passed" | "failed" | "skipped"> = { a: "passed", b: "failed", c: "skipped" };
    const chart = renderMermaid(plan, { statusOf: (id) => statuses[id] });
    expect(chart).toContain("class n0 passed");
    expect(chart).toContain("class n1 failed");
    expect(chart).toContain("class n2 skipped");
    expect(chart).toMatch(/classDef failed fill:#ffe3e3/);
  });

  it("shows subgraphs instead of nodes when the graph is too big to render", () => {
    const big = planOf(rpgDoc(chain(200)));
    const chart = renderMermaid(big);
    expect(chart).toBe('flowchart TD\n  s0["core<br/><small>200 nodes</small>"]\n');
  });

  it("keeps markup out of labels", () => {
    const hostile = planOf(rpgDoc([leaf({ id: "x", name: "f", subgraph: "a<script>" })]));
    expect(renderMermaid(hostile)).not.toContain("<script>");
  });
});

describe("renderGenerationReport", () => {
  it("shows the coverage of a run: 15 of 20 passed is 75%", async () => {
    const { renderGenerationReport } = await import("../../src/report/generation-report.js");
    const { summarize } = await import("../../src/record/summary.js");
    const plan = planOf(rpgDoc(chain(20)));
    const status = (i: number): "passed" | "failed" | "skipped" => (i < 15 ? "passed" : i === 15 ? "failed" : "skipped");
    const nodes = Object.fromEntries(
      plan.order.map((id, i) => [
        id,
        {
          status: status(i),
          timestamp: "t",
          test_results: { passed: 3, failed: 0 },
          retry_count: 0,
          attempts: [],
          subgraph_id: "core",
          node_type: "leaf" as const,
          ...(i === 15 ? { failure_reason: "AssertionError" } : {}),
        },
      ]),
    );
    const checkpoint = { version: 1 as const, run_id: "r", rpg_sha256: "", created_at: "t", updated_at: "t", nodes };
    const report = renderGenerationReport({
      plan,
      checkpoint,
      summary: summarize(checkpoint),
      rpgPath: "rpg.json",
      runId: "r",
      model: "m",
      generatedAt: new Date(0),
      elapsedMs: 90_000,
    });
    expect(report).toContain("- **Nodes Passed**: 15 (75%)");
    expect(report).toContain("| `core` | 20 | 15 | 1 | 4 | 94% |");
    expect(report).toContain("- **Generation Time**: 1 min 30 s");
    expect(report).toMatch(/^```mermaid\nflowchart TD/m);
  });
});
