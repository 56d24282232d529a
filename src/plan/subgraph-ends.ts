import type { Plan, PlannedSubgraph } from "./plan.js";

/** A subgraph's structure as its integration tests see it (PRD epic 4.5): where data enters and where it leaves. */
export interface SubgraphEnds {
  /** The subgraph's leaves, in generation order. */
  leaves: string[];
  /** Leaves that depend on no other leaf of the subgraph. */
  entries: string[];
  /** Leaves that no other leaf of the subgraph depends on. */
  exits: string[];
  /** Dependencies between the subgraph's leaves, as [dependent, dependency]. */
  edges: [string, string][];
}

/** The entries, exits and inner edges of a subgraph's leaves; composites (modules, packages) are scaffolding, not code. */
export function subgraphEnds(plan: Plan, subgraph: PlannedSubgraph): SubgraphEnds {
  const leaves = subgraph.nodes.filter((id) => plan.nodes.get(id)?.node_type === "leaf");
  const inside = new Set(leaves);
  const edges: [string, string][] = [];
  for (const id of leaves) for (const dep of plan.dependencies.get(id) ?? []) if (inside.has(dep)) edges.push([id, dep]);
  const dependents = new Set(edges.map(([, dep]) => dep));
  const dependent = new Set(edges.map(([id]) => id));
  return {
    leaves,
    entries: leaves.filter((id) => !dependent.has(id)),
    exits: leaves.filter((id) => !dependents.has(id)),
    edges,
  };
}
