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
