import type { DependencyGraph } from "./graph.js";
import { compareIds } from "./ids.js";

/**
 * Finds the cycles of a dependency graph: one per strongly connected component, each
 * named in order ("a depends on b depends on ... depends on a"), starting at the
 * smallest id so the report is the same for every ordering of the file. Naming one
 * cycle per component, rather than every node Kahn's algorithm could not order,
 * keeps the message short when a 10,000-node graph has a single loop.
 */
export function findCycles(graph: DependencyGraph): string[][] {
  const cycles: string[][] = [];
  for (const component of stronglyConnectedComponents(graph)) {
    const first = component[0];
    if (first === undefined) continue;
    const selfLoop = component.length === 1 && (graph.get(first) ?? []).includes(first);
    if (component.length > 1 || selfLoop) cycles.push(shortestCycleThrough(first, new Set(component), graph));
  }
  return cycles.sort((a, b) => compareIds(a[0]!, b[0]!));
}

/** Tarjan's algorithm, iterative so that a 10,000-node chain does not overflow the stack. Components come back sorted. */
function stronglyConnectedComponents(graph: DependencyGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const root of [...graph.keys()].sort(compareIds)) {
    if (index.has(root)) continue;
    const work: { id: string; next: number }[] = [{ id: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const deps = graph.get(frame.id) ?? [];
      if (frame.next < deps.length) {
        const dep = deps[frame.next++]!;
        if (!graph.has(dep)) continue;
        if (!index.has(dep)) {
          index.set(dep, counter);
          low.set(dep, counter++);
          stack.push(dep);
          onStack.add(dep);
          work.push({ id: dep, next: 0 });
        } else if (onStack.has(dep)) {
          low.set(frame.id, Math.min(low.get(frame.id)!, index.get(dep)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.id);
        components.push(component.sort(compareIds));
      }
    }
  }
  return components;
}

/** Breadth-first search from `start` back to itself inside one component: the shortest cycle through it. */
function shortestCycleThrough(start: string, members: ReadonlySet<string>, graph: DependencyGraph): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    for (const dep of graph.get(id) ?? []) {
      if (!members.has(dep)) continue;
      if (dep === start) {
        const path = [id];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(dep) && dep !== start) {
        previous.set(dep, id);
        queue.push(dep);
      }
    }
  }
  return [start, start];
}
