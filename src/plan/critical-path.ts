import type { DependencyGraph } from "../rpg/graph.js";
import { compareIds } from "../rpg/ids.js";

/**
 * One longest chain of dependencies, first dependency first: the lower bound on the
 * steps of any schedule, however many runners work in parallel. Among chains of equal
 * length the one ending at the smallest id (then reached through the smallest ids) wins.
 */
export function criticalPath(graph: DependencyGraph, levelOf: ReadonlyMap<string, number>): string[] {
  let end: string | undefined;
  for (const [id, level] of levelOf) {
    const best = end === undefined ? -1 : levelOf.get(end)!;
    if (level > best || (level === best && compareIds(id, end!) < 0)) end = id;
  }
  const path: string[] = [];
  for (let id = end; id !== undefined;) {
    path.unshift(id);
    const level = levelOf.get(id)!;
    id = (graph.get(id) ?? []).find((dep) => levelOf.get(dep) === level - 1);
  }
  return path;
}
