import { compareIds } from "./ids.js";
import type { EdgeType, Rpg } from "./schema.js";

/**
 * Which way an edge points, decided once here. For calls, imports, inheritance and
 * uses the source needs the target to exist first; for data_flow the producer
 * (source) must exist before its consumer (target). The PRD's pseudocode counts
 * in-degree on edge.target for every type, which would generate callers before
 * callees; see docs/decisions/0001-dependency-direction.md.
 */
export function dependencyOf(type: EdgeType, source: string, target: string): { dependent: string; dependency: string } {
  return type === "data_flow" ? { dependent: target, dependency: source } : { dependent: source, dependency: target };
}

/** node id -> the ids it depends on, merged from `dependencies`, edges and `parent_id`; sorted, no duplicates. */
export type DependencyGraph = ReadonlyMap<string, readonly string[]>;

/**
 * Builds the dependency graph of an RPG. References to unknown nodes are left out:
 * the validator reports them, and the planner only sees validated graphs.
 * A parent is a dependency of its children: the module exists before its functions.
 */
export function buildDependencyGraph(rpg: Pick<Rpg, "nodes" | "edges">): Map<string, string[]> {
  const deps = new Map<string, Set<string>>();
  for (const node of rpg.nodes) deps.set(node.id, new Set());
  const add = (dependent: string, dependency: string): void => {
    const set = deps.get(dependent);
    if (set && deps.has(dependency)) set.add(dependency);
  };
  for (const node of rpg.nodes) {
    for (const dep of node.dependencies) add(node.id, dep);
    if (node.parent_id !== undefined) add(node.id, node.parent_id);
  }
  for (const edge of rpg.edges) {
    const { dependent, dependency } = dependencyOf(edge.type, edge.source, edge.target);
    add(dependent, dependency);
  }
  const graph = new Map<string, string[]>();
  for (const [id, set] of deps) graph.set(id, [...set].sort(compareIds));
  return graph;
}

/** The reverse of a dependency graph: node id -> the ids that depend on it, sorted. */
export function dependentsOf(graph: DependencyGraph): Map<string, string[]> {
  const dependents = new Map<string, string[]>();
  for (const id of graph.keys()) dependents.set(id, []);
  for (const [id, deps] of graph) for (const dep of deps) dependents.get(dep)?.push(id);
  for (const list of dependents.values()) list.sort(compareIds);
  return dependents;
}

/** subgraph id -> the subgraphs it needs (a node of it depends on a node of theirs), sorted. */
export function buildSubgraphGraph(rpg: Pick<Rpg, "nodes">, graph: DependencyGraph): Map<string, string[]> {
  const subgraphOf = new Map(rpg.nodes.map((n) => [n.id, n.subgraph_id]));
  const deps = new Map<string, Set<string>>();
  for (const node of rpg.nodes) if (!deps.has(node.subgraph_id)) deps.set(node.subgraph_id, new Set());
  for (const [id, nodeDeps] of graph) {
    const from = subgraphOf.get(id);
    if (from === undefined) continue;
    for (const dep of nodeDeps) {
      const to = subgraphOf.get(dep);
      if (to !== undefined && to !== from) deps.get(from)?.add(to);
    }
  }
  return new Map([...deps].map(([id, set]) => [id, [...set].sort(compareIds)]));
}
