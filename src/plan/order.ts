import type { DependencyGraph } from "../rpg/graph.js";
import { compareIds } from "../rpg/ids.js";

/**
 * Kahn's algorithm with ties broken by node id: of all nodes whose dependencies are
 * done, the smallest id goes next, so the order depends on the graph alone, not on
 * the order of nodes or edges in the file. Returns the ids it could not order
 * (members of or downstream of a cycle) instead of throwing; the validator names the
 * cycles themselves.
 */
export function topologicalOrder(graph: DependencyGraph): { order: string[]; unordered: string[] } {
  const waiting = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const [id, deps] of graph) {
    waiting.set(id, deps.length);
    for (const dep of deps) {
      const list = dependents.get(dep);
      if (list) list.push(id);
      else dependents.set(dep, [id]);
    }
  }
  const ready = new MinHeap(compareIds);
  for (const [id, count] of waiting) if (count === 0) ready.push(id);
  const order: string[] = [];
  while (ready.size > 0) {
    const id = ready.pop()!;
    order.push(id);
    for (const dependent of dependents.get(id) ?? []) {
      const left = waiting.get(dependent)! - 1;
      waiting.set(dependent, left);
      if (left === 0) ready.push(dependent);
    }
  }
  const unordered = [...waiting]
    .filter(([, count]) => count > 0)
    .map(([id]) => id)
    .sort(compareIds);
  return { order, unordered };
}

/** A binary heap: the ready set of a 10,000-node graph stays O(log n) per step, where a sorted array would not. */
class MinHeap {
  private readonly items: string[] = [];
  constructor(private readonly compare: (a: string, b: string) => number) {}

  get size(): number {
    return this.items.length;
  }

  push(item: string): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(items[i]!, items[parent]!) >= 0) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): string | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && this.compare(items[left]!, items[smallest]!) < 0) smallest = left;
      if (right < items.length && this.compare(items[right]!, items[smallest]!) < 0) smallest = right;
      if (smallest === i) break;
      [items[i], items[smallest]] = [items[smallest]!, items[i]!];
      i = smallest;
    }
    return top;
  }
}
