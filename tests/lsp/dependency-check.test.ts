import { describe, expect, it } from "vitest";
import { compareDependencies } from "../../src/lsp/dependency-check.js";
import type { Reference, SymbolMatch } from "../../src/lsp/schema.js";
import type { RpgNode } from "../../src/rpg/schema.js";

// The comparison itself, on what code intelligence would have found: which pairs count, and which way.
const node = (id: string, name: string, more: Partial<RpgNode> = {}): RpgNode => ({
  id,
  name,
  type: "function",
  node_type: "leaf",
  file_path: "src/p/m.py",
  docstring: ".",
  dependencies: [],
  subgraph_id: "s",
  ...more,
});

const match = (qualname: string, line: number): SymbolMatch => ({
  name: qualname.split(".").at(-1)!,
  qualname,
  kind: "function",
  file: "src/p/m.py",
  line,
  column: 5,
  startLine: line,
  endLine: line + 1,
  signature: "",
  docstring: null,
  preview: "",
});

const from = (qualname: string | null, line: number): Reference => ({
  file: "src/p/m.py",
  line,
  column: 1,
  kind: "call",
  text: "",
  enclosing: qualname === null ? null : { qualname, kind: "function", line },
});

describe("compareDependencies", () => {
  const nodes = [node("a", "a"), node("b", "b", { dependencies: ["a"] }), node("mod", "m", { node_type: "composite", type: "module" })];

  it("reads data_flow edges producer first, and counts a reference from a nested definition for its node", () => {
    const rpg = { nodes: [...nodes, node("c", "c")], edges: [{ source: "a", target: "c", type: "data_flow" as const }] };
    const located = new Map([
      ["a", match("a", 1)],
      ["b", match("b", 5)],
      ["c", match("c", 9)],
    ]);
    // c's reference sits in a function nested in c (the outline calls it c); b's comes from module level.
    const check = compareDependencies(rpg, located, new Map([["a", [from("c", 10), from(null, 20)]]]), "pyright");
    expect(check).toMatchObject({ planned: 2, confirmed: 1, share: 0.5, meetsTarget: false });
    expect(check.missing).toEqual([{ dependent: "b", dependency: "a", plannedAs: ["dependencies"] }]);
    expect(check.unplanned).toEqual([]);
  });

  it("leaves a method and its class out, and gives no share when nothing is planned", () => {
    const rpg = {
      nodes: [node("k", "K", { type: "class" }), node("k.m", "m", { type: "method", parent_id: "k", dependencies: ["k"] })],
      edges: [],
    };
    const located = new Map([
      ["k", match("K", 1)],
      ["k.m", match("K.m", 2)],
    ]);
    const check = compareDependencies(rpg, located, new Map([["k", [from("K.m", 3)]]]), "ast");
    expect(check).toMatchObject({ planned: 0, confirmed: 0, share: null, meetsTarget: true, unplanned: [], unreferenced: ["k", "k.m"] });
  });
});
