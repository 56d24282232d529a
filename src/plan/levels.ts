import type { DependencyGraph } from "../rpg/graph.js";
import { compareIds } from "../rpg/ids.js";

/**
 * The dependency level of every node: 0 for nodes with no dependencies, otherwise one
 * more than the deepest dependency. Nodes of one level never depend on each other, so
 * each level is a set that could be generated at the same time.
 */
export function dependencyLevels(graph: DependencyGraph, order: readonly string[]): { levelOf: Map<string, number>; levels: string[][] } {
  const levelOf = new Map<string, number>();
  const levels: string[][] = [];
  for (const id of order) {
    let level = 0;
    for (const dep of graph.get(id) ?? []) level = Math.max(level, (levelOf.get(dep) ?? 0) + 1);
    levelOf.set(id, level);
    (levels[level] ??= []).push(id);
  }
  for (const level of levels) level.sort(compareIds);
  return { levelOf, levels };
}
