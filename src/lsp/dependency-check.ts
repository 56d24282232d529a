import { compareIds } from "../rpg/ids.js";
import { dependencyOf } from "../rpg/graph.js";
import { normalizePath } from "../rpg/paths.js";
import type { Rpg, RpgNode } from "../rpg/schema.js";
import { symbolKindOf } from "../rpg/symbol-kind.js";
import type { Backend, DependencyCheck, Reference, SymbolMatch } from "./schema.js";

/** The PRD's target: 80% of planned dependencies confirmed by the code. */
export const DEPENDENCY_TARGET = 0.8;

/** Where a leaf's definition should be: its file, and `Class.method` for a method node. */
export function expectedSymbol(rpg: Pick<Rpg, "nodes">, node: RpgNode): { file: string; qualname: string } {
  const parent = node.parent_id === undefined ? undefined : rpg.nodes.find((n) => n.id === node.parent_id);
  const qualname = symbolKindOf(node) === "method" && parent ? `${parent.name}.${node.name}` : node.name;
  return { file: normalizePath(node.file_path), qualname };
}

/**
 * Compares the plan's dependencies between leaves (a node's `dependencies` and the edges, each the way decision 0001
 * reads it) with the references in the code: the dependent must name the dependency somewhere in its own definition.
 * A method and its class are one piece of code, so containment is neither planned nor found. Pure: `located` and
 * `referencesTo` are what code intelligence found.
 */
export function compareDependencies(
  rpg: Pick<Rpg, "nodes" | "edges">,
  located: ReadonlyMap<string, SymbolMatch>,
  referencesTo: ReadonlyMap<string, readonly Reference[]>,
  via: Backend,
): DependencyCheck {
  const leaves = rpg.nodes.filter((n) => n.node_type === "leaf").sort((a, b) => compareIds(a.id, b.id));
  const isLeaf = new Set(leaves.map((n) => n.id));
  const parentOf = new Map(leaves.map((n) => [n.id, n.parent_id]));
  const contains = (a: string, b: string): boolean => parentOf.get(a) === b || parentOf.get(b) === a;
  const pairKey = (dependent: string, dependency: string): string => `${dependent}\u0000${dependency}`;

  const planned = new Map<string, { dependent: string; dependency: string; plannedAs: DependencyCheck["missing"][number]["plannedAs"] }>();
  const plan = (dependent: string, dependency: string, as: DependencyCheck["missing"][number]["plannedAs"][number]): void => {
    if (!isLeaf.has(dependent) || !isLeaf.has(dependency) || dependent === dependency || contains(dependent, dependency)) return;
    const key = pairKey(dependent, dependency);
    const entry = planned.get(key) ?? { dependent, dependency, plannedAs: [] };
    if (!entry.plannedAs.includes(as)) entry.plannedAs.push(as);
    planned.set(key, entry);
  };
  for (const node of leaves) for (const dep of node.dependencies) plan(node.id, dep, "dependencies");
  for (const edge of rpg.edges) {
    const { dependent, dependency } = dependencyOf(edge.type, edge.source, edge.target);
    plan(dependent, dependency, edge.type);
  }

  // Which leaf a reference is written in: its enclosing definition, or the nearest enclosing one that is a node.
  const nodeAt = new Map<string, string>();
  for (const [id, match] of located) nodeAt.set(`${match.file}\u0000${match.qualname}`, id);
  const ownerOf = (reference: Reference): string | undefined => {
    let qualname = reference.enclosing?.qualname;
    while (qualname) {
      const id = nodeAt.get(`${reference.file}\u0000${qualname}`);
      if (id !== undefined) return id;
      qualname = qualname.includes(".") ? qualname.slice(0, qualname.lastIndexOf(".")) : undefined;
    }
    return undefined;
  };
  const found = new Map<string, { dependent: string; dependency: string; at: { file: string; line: number }[] }>();
  for (const [dependency, references] of referencesTo) {
    for (const reference of references) {
      const dependent = ownerOf(reference);
      if (dependent === undefined || dependent === dependency || contains(dependent, dependency)) continue;
      const key = pairKey(dependent, dependency);
      const entry = found.get(key) ?? { dependent, dependency, at: [] };
      entry.at.push({ file: reference.file, line: reference.line });
      found.set(key, entry);
    }
  }

  const checkable = [...planned.values()].filter((p) => located.has(p.dependent) && located.has(p.dependency));
  const missing = checkable.filter((p) => !found.has(pairKey(p.dependent, p.dependency)));
  const confirmed = checkable.length - missing.length;
  const share = checkable.length > 0 ? confirmed / checkable.length : null;
  const byPair = (a: { dependent: string; dependency: string }, b: { dependent: string; dependency: string }): number =>
    compareIds(a.dependent, b.dependent) || compareIds(a.dependency, b.dependency);
  const referenced = new Set([...found.values()].map((f) => f.dependency));
  return {
    via,
    target: DEPENDENCY_TARGET,
    planned: checkable.length,
    confirmed,
    share,
    meetsTarget: share === null || share >= DEPENDENCY_TARGET,
    missing: missing.sort(byPair),
    unplanned: [...found.values()].filter((f) => !planned.has(pairKey(f.dependent, f.dependency))).sort(byPair),
    unchecked: planned.size - checkable.length,
    notFound: leaves.filter((n) => !located.has(n.id)).map((n) => n.id),
    unreferenced: leaves.filter((n) => located.has(n.id) && !referenced.has(n.id)).map((n) => n.id),
  };
}
