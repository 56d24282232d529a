import type { RpgNode } from "./schema.js";

/**
 * What Python a leaf becomes, from its `type`: a module-level assignment for a constant or a
 * type alias, a class, or else a function. One place, so the prompt, the checks, the stub and
 * the layout agree.
 */
export type SymbolKind = "function" | "class" | "constant" | "method";

const CONSTANT_TYPES = new Set(["constant", "type_alias"]);

/** A method is a `type: method` leaf whose parent_id names its class (validation checks the parent is one). */
export function symbolKindOf(node: Pick<RpgNode, "type" | "parent_id">): SymbolKind {
  if (node.type === "class") return "class";
  if (node.type === "method" && node.parent_id !== undefined) return "method";
  return CONSTANT_TYPES.has(node.type) ? "constant" : "function";
}
