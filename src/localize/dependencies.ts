import { RpgForgeError } from "../errors.js";
import { buildDependencyGraph, dependentsOf } from "../rpg/graph.js";
import { compareIds } from "../rpg/ids.js";
import type { NodeStatus, Rpg, RpgNode } from "../rpg/schema.js";

/** node id -> status: a checkpoint's, or the RPG's own `status` fields (docs/rpg.json of a generated package). */
export type NodeStatuses = ReadonlyMap<string, NodeStatus>;

export interface NodeRef {
  id: string;
  name: string;
  type: string;
  subgraphId: string;
  status?: NodeStatus;
  /** Marked: a failed node near the one being debugged may be the root cause. */
  failed: boolean;
}

export interface Neighbour extends NodeRef {
  /**
   * The second hop, in the same direction: for a dependency, what it depends on; for a dependent,
   * what depends on it.
   */
  next: NodeRef[];
  /** For a dependency: the other nodes that depend on it too (what else a bug in it would break). */
  alsoNeededBy?: string[];
}

export interface DependencyView {
  node: NodeRef & { filePath: string };
  /** What the node depends on (outgoing: generated before it). Empty, not an error, for a node with none. */
  dependsOn: Neighbour[];
  /** Who depends on the node (incoming). */
  dependents: Neighbour[];
  /** Failed nodes within two hops, sorted: the first places to look. */
  failedNearby: string[];
}

/**
 * Two-hop neighbourhoods of an RPG's nodes, by the dependency direction of decision 0001 (graph.ts).
 * Containment is left out: every function would otherwise "depend" on its module; a method keeps its
 * class, which is code. The graph is built once; statuses are given per call, since they change as a
 * run goes on.
 */
export class DependencyExplorer {
  private readonly nodes: Map<string, RpgNode>;
  private readonly deps: Map<string, string[]>;
  private readonly dependents: Map<string, string[]>;
  private readonly ownStatuses: NodeStatuses;

  constructor(rpg: Pick<Rpg, "nodes" | "edges">) {
    this.nodes = new Map(rpg.nodes.map((n) => [n.id, n]));
    const withoutModules = rpg.nodes.map((n) => {
      if (n.parent_id === undefined || this.nodes.get(n.parent_id)?.node_type !== "composite") return n;
      const { parent_id: _parent, ...rest } = n;
      return rest;
    });
    this.deps = buildDependencyGraph({ nodes: withoutModules, edges: rpg.edges });
    this.dependents = dependentsOf(this.deps);
    this.ownStatuses = statusesOf(rpg);
  }

  /** The node's dependencies and dependents, two hops each way. Throws LOCALIZE_UNKNOWN_NODE for an id the RPG lacks. */
  explore(nodeId: string, statuses: NodeStatuses = this.ownStatuses): DependencyView {
    const node = this.nodes.get(nodeId);
    if (!node)
      throw new RpgForgeError(
        "LOCALIZE_UNKNOWN_NODE",
        `no node "${nodeId}" in the RPG`,
        { nodeId },
        "node ids are case-sensitive; `rpg-forge plan <rpg>` lists them",
      );
    const ref = (id: string): NodeRef => {
      const n = this.nodes.get(id)!;
      const status = statuses.get(id);
      return { id, name: n.name, type: n.type, subgraphId: n.subgraph_id, ...(status ? { status } : {}), failed: status === "failed" };
    };
    const dependsOn = (this.deps.get(nodeId) ?? []).map((id) => ({
      ...ref(id),
      next: (this.deps.get(id) ?? []).map(ref),
      alsoNeededBy: (this.dependents.get(id) ?? []).filter((other) => other !== nodeId),
    }));
    const dependents = (this.dependents.get(nodeId) ?? []).map((id) => ({ ...ref(id), next: (this.dependents.get(id) ?? []).map(ref) }));
    const nearby = new Set<string>();
    for (const n of [...dependsOn, ...dependents]) for (const r of [n, ...n.next]) if (r.failed && r.id !== nodeId) nearby.add(r.id);
    return {
      node: { ...ref(nodeId), filePath: node.file_path },
      dependsOn,
      dependents,
      failedNearby: [...nearby].sort(compareIds),
    };
  }
}

/** The statuses an RPG carries itself (docs/rpg.json of a generated package has one per node). */
export function statusesOf(rpg: Pick<Rpg, "nodes">): NodeStatuses {
  return new Map(rpg.nodes.flatMap((n) => (n.status === undefined ? [] : [[n.id, n.status] as const])));
}

/**
 * The view as an ASCII tree (plain `|--` and `` `-- ``, so it survives any terminal, log or prompt). Failed
 * nodes are marked FAILED in capitals; the last line names them again as the first places to look.
 */
export function renderDependencyTree(view: DependencyView): string {
  const label = (r: NodeRef): string => `${r.id}${r.name !== r.id ? ` (${r.name})` : ""}${statusMark(r)}`;
  const lines = [`${label(view.node)}  [${view.node.subgraphId}, ${view.node.filePath}]`];
  const section = (title: string, items: Neighbour[], nextTitle: string, last: boolean): void => {
    const bar = last ? "    " : "|   ";
    lines.push(`${last ? "`-- " : "|-- "}${title}${items.length === 0 ? ": (none)" : ` (${items.length})`}`);
    items.forEach((item, i) => {
      const lastItem = i === items.length - 1;
      const pipe = lastItem ? "    " : "|   ";
      lines.push(`${bar}${lastItem ? "`-- " : "|-- "}${label(item)}`);
      const children = [
        ...item.next.map((n) => `${nextTitle} ${label(n)}`),
        ...(item.alsoNeededBy && item.alsoNeededBy.length > 0 ? [`also needed by: ${item.alsoNeededBy.join(", ")}`] : []),
      ];
      children.forEach((child, j) => lines.push(`${bar}${pipe}${j === children.length - 1 ? "`-- " : "|-- "}${child}`));
    });
  };
  section("depends on", view.dependsOn, "depends on", false);
  section("needed by", view.dependents, "needed by", true);
  if (view.failedNearby.length > 0) lines.push(`FAILED within two hops (may be the root cause): ${view.failedNearby.join(", ")}`);
  return `${lines.join("\n")}\n`;
}

function statusMark(r: NodeRef): string {
  if (r.failed) return " [FAILED]";
  return r.status ? ` [${r.status}]` : "";
}
