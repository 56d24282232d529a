import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { topologicalOrder } from "../../src/plan/order.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { compareIds } from "../../src/rpg/ids.js";
import type { Rpg } from "../../src/rpg/schema.js";
import { readFileSync } from "node:fs";
import { chain, composite, leaf, rpgDoc, text } from "../helpers/rpg.js";

function load(doc: unknown): Rpg {
  const loaded = parseRpgText(text(doc), "rpg.json");
  if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join("; "));
  return loaded.value;
}

describe("buildPlan", () => {
  it("orders a linear chain A→B→C as [A, B, C]", () => {
    const plan = buildPlan(load(rpgDoc([leaf({ id: "C", deps: ["B"] }), leaf({ id: "A" }), leaf({ id: "B", deps: ["A"] })])));
    expect(plan.order).toEqual(["A", "B", "C"]);
  });

  it("orders a diamond: A before B and C, both before D", () => {
    const plan = buildPlan(
      load(
        rpgDoc([leaf({ id: "D", deps: ["B", "C"] }), leaf({ id: "C", deps: ["A"] }), leaf({ id: "B", deps: ["A"] }), leaf({ id: "A" })]),
      ),
    );
    expect(plan.order).toEqual(["A", "B", "C", "D"]);
    expect(plan.levels).toEqual([["A"], ["B", "C"], ["D"]]);
    expect(plan.criticalPath).toEqual(["A", "B", "D"]);
  });

  it("gives the same order whatever the order of nodes and edges in the file", () => {
    const nodes = [leaf({ id: "n3" }), leaf({ id: "n1" }), leaf({ id: "n2", deps: ["n3"] }), leaf({ id: "n10" }), leaf({ id: "n4" })];
    const edges = [
      { source: "n4", target: "n1", type: "function_call" },
      { source: "n10", target: "n4", type: "data_flow" },
    ];
    const orders = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const shuffledNodes = shuffle(nodes, seed);
      const shuffledEdges = shuffle(edges, seed + 100);
      orders.add(buildPlan(load(rpgDoc(shuffledNodes, shuffledEdges))).order.join(","));
    }
    expect([...orders]).toEqual(["n1,n3,n2,n10,n4"]);
  });

  it("follows each edge type's direction: calls after callees, consumers after producers", () => {
    const plan = buildPlan(
      load(
        rpgDoc(
          [
            leaf({ id: "caller" }),
            leaf({ id: "callee" }),
            leaf({ id: "producer" }),
            leaf({ id: "consumer" }),
            leaf({ id: "base", type: "class" }),
            leaf({ id: "derived", type: "class" }),
          ],
          [
            { source: "caller", target: "callee", type: "function_call" },
            { source: "producer", target: "consumer", type: "data_flow" },
            { source: "derived", target: "base", type: "inherits" },
          ],
        ),
      ),
    );
    const at = (id: string) => plan.order.indexOf(id);
    expect(at("callee")).toBeLessThan(at("caller"));
    expect(at("producer")).toBeLessThan(at("consumer"));
    expect(at("base")).toBeLessThan(at("derived"));
  });

  it("breaks ties by natural id order: node_2 before node_10", () => {
    const plan = buildPlan(load(rpgDoc([leaf({ id: "node_10" }), leaf({ id: "node_2" }), leaf({ id: "node_1" })])));
    expect(plan.order).toEqual(["node_1", "node_2", "node_10"]);
  });

  it("puts parents before their children", () => {
    const module = composite({ id: "z_module" });
    const plan = buildPlan(load(rpgDoc([leaf({ id: "a", parent_id: "z_module" }), module])));
    expect(plan.order).toEqual(["z_module", "a"]);
  });

  it("plans the 20-node, 3-subgraph fixture with dependencies first", () => {
    const plan = buildPlan(load(JSON.parse(readFileSync("tests/fixtures/rpg/twenty-nodes.json", "utf8"))));
    expect(plan.order).toHaveLength(20);
    for (const [id, deps] of plan.dependencies)
      for (const dep of deps) expect(plan.order.indexOf(dep)).toBeLessThan(plan.order.indexOf(id));
    expect(plan.subgraphs.map((s) => [s.id, s.wave, s.dependsOn])).toEqual([
      ["ingest", 0, []],
      ["transform", 1, ["ingest"]],
      ["export", 2, ["ingest", "transform"]],
    ]);
    expect(plan.criticalPath.length).toBe(plan.levels.length);
  });

  it("plans 10,000 nodes as a chain without overflowing the stack", () => {
    const plan = buildPlan(load(rpgDoc(chain(10_000))));
    expect(plan.order[9_999]).toBe("n10000");
    expect(plan.criticalPath).toHaveLength(10_000);
  });
});

describe("topologicalOrder", () => {
  it("returns the nodes it cannot order instead of throwing", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["a"]],
      ["c", []],
      ["d", ["a"]],
    ]);
    expect(topologicalOrder(graph)).toEqual({ order: ["c"], unordered: ["a", "b", "d"] });
  });
});

describe("compareIds", () => {
  it("sorts digit runs as numbers and the rest by code unit", () => {
    expect(["b", "a10", "a2", "a02", "A1", "a"].sort(compareIds)).toEqual(["A1", "a", "a02", "a2", "a10", "b"]);
  });
});

function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed + 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
