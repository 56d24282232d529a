import { buildDependencyGraph, buildSubgraphGraph, dependentsOf } from "../rpg/graph.js";
import { compareIds } from "../rpg/ids.js";
import type { Rpg, RpgNode } from "../rpg/schema.js";
import { criticalPath } from "./critical-path.js";
import { dependencyLevels } from "./levels.js";
import { topologicalOrder } from "./order.js";

export interface PlannedSubgraph {
  id: string;
  name: string;
  description?: string;
  /** The subgraph's nodes in generation order. */
  nodes: string[];
  /** Subgraphs one of whose nodes a node of this one depends on. */
  dependsOn: string[];
  /** 0 for subgraphs that need no other; otherwise one more than the deepest they need. */
  wave: number;
}

/** Everything the engine and the edges need to know about the order of work. */
export interface Plan {
  order: string[];
  levels: string[][];
  levelOf: Map<string, number>;
  criticalPath: string[];
  subgraphs: PlannedSubgraph[];
  /** node id -> ids it depends on (merged from dependencies, edges and parent_id). */
  dependencies: Map<string, string[]>;
  /** node id -> ids that depend on it. */
  dependents: Map<string, string[]>;
  nodes: Map<string, RpgNode>;
}

/**
 * Plans a validated RPG. Throws only if handed a graph with a cycle, which the
 * validator rejects first; callers go through loadRpg.
 */
export function buildPlan(rpg: Rpg): Plan {
  const dependencies = buildDependencyGraph(rpg);
  const { order, unordered } = topologicalOrder(dependencies);
  if (unordered.length > 0) throw new Error(`buildPlan was given a graph with a cycle among: ${unordered.slice(0, 10).join(", ")}`);
  const { levelOf, levels } = dependencyLevels(dependencies, order);
  const nodes = new Map(rpg.nodes.map((n) => [n.id, n]));
  return {
    order,
    levels,
    levelOf,
    criticalPath: criticalPath(dependencies, levelOf),
    subgraphs: planSubgraphs(rpg, order, buildSubgraphGraph(rpg, dependencies)),
    dependencies,
    dependents: dependentsOf(dependencies),
    nodes,
  };
}

function planSubgraphs(rpg: Rpg, order: readonly string[], subgraphDeps: Map<string, string[]>): PlannedSubgraph[] {
  const listed = new Map((rpg.subgraphs ?? []).map((s) => [s.id, s]));
  const subgraphOf = new Map(rpg.nodes.map((n) => [n.id, n.subgraph_id]));
  const members = new Map<string, string[]>();
  for (const id of order) {
    const subgraph = subgraphOf.get(id)!;
    const list = members.get(subgraph);
    if (list) list.push(id);
    else members.set(subgraph, [id]);
  }
  const { levelOf: waveOf, unordered } = wavesOf(subgraphDeps);
  const planned = [...members].map(([id, nodes]): PlannedSubgraph => {
    const info = listed.get(id);
    const subgraph: PlannedSubgraph = {
      id,
      name: info?.name ?? id,
      nodes,
      dependsOn: subgraphDeps.get(id) ?? [],
      wave: waveOf.get(id) ?? -1,
    };
    if (info?.description !== undefined) subgraph.description = info.description;
    return subgraph;
  });
  // Subgraphs in a circle (a validator warning) have no wave; they go last, by id.
  const unorderedSet = new Set(unordered);
  return planned.sort(
    (a, b) => (unorderedSet.has(a.id) ? 1 : 0) - (unorderedSet.has(b.id) ? 1 : 0) || a.wave - b.wave || compareIds(a.id, b.id),
  );
}

function wavesOf(subgraphDeps: Map<string, string[]>): { levelOf: Map<string, number>; unordered: string[] } {
  const { order, unordered } = topologicalOrder(subgraphDeps);
  return { levelOf: dependencyLevels(subgraphDeps, order).levelOf, unordered };
}
