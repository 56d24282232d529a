import type { EdgeType } from "../../src/rpg/schema.js";

export interface NodeSpec {
  id: string;
  deps?: string[];
  subgraph?: string;
  file?: string;
  name?: string;
  [key: string]: unknown;
}

/** A leaf node in the PRD's appendix A shape, with defaults that pass validation. */
export function leaf(spec: NodeSpec): Record<string, unknown> {
  const { id, deps = [], subgraph = "core", file, name, ...rest } = spec;
  const symbol = name ?? `fn_${id.replace(/\W/g, "_")}`;
  return {
    id,
    name: symbol,
    type: "function",
    node_type: "leaf",
    file_path: file ?? "src/pkg/core.py",
    docstring: `Do ${symbol}.`,
    dependencies: deps,
    subgraph_id: subgraph,
    ...rest,
  };
}

/** A composite node: a module (a .py file) by default, or a package (a directory). */
export function composite(spec: {
  id: string;
  name?: string;
  type?: "module" | "package";
  file?: string;
  deps?: string[];
  subgraph?: string;
  [key: string]: unknown;
}): Record<string, unknown> {
  const {
    id,
    name = "core",
    type = "module",
    file = type === "module" ? "src/pkg/core.py" : "src/pkg",
    deps = [],
    subgraph = "core",
    ...rest
  } = spec;
  return { id, name, type, node_type: "composite", file_path: file, docstring: "", dependencies: deps, subgraph_id: subgraph, ...rest };
}

/** An RPG document (as JSON text would hold it) from node specs and edges. */
export function rpgDoc(
  nodes: Record<string, unknown>[],
  edges: { source: string; target: string; type: EdgeType | string }[] = [],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { nodes, edges, metadata: { name: "pkg" }, ...extra };
}

/** Nodes a, b, c, ... where each depends on the one before: a chain of `n`. */
export function chain(n: number, prefix = "n"): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) =>
    leaf({ id: `${prefix}${String(i + 1).padStart(2, "0")}`, deps: i === 0 ? [] : [`${prefix}${String(i).padStart(2, "0")}`] }),
  );
}

export const text = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;
