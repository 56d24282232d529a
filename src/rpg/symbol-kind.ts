import type { RpgNode } from "./schema.js";

/**
 * What Python a leaf becomes, from its `type`: a module-level assignment for a constant or a
 * type alias, a class, or else a function. One place, so the prompt, the checks, the stub and
 * the layout agree.
 */
export type SymbolKind = "function" | "class" | "constant";

const CONSTANT_TYPES = new Set(["constant", "type_alias"]);

export function symbolKindOf(node: Pick<RpgNode, "type">): SymbolKind {
  if (node.type === "class") return "class";
  return CONSTANT_TYPES.has(node.type) ? "constant" : "function";
}
