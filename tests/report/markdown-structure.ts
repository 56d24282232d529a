import { expect } from "vitest";

/** An oracle independent of the implementation: CommonMark fences, and <details> tags outside them. */
export function structure(markdown: string): { openFence: string | undefined; depth: number; closedTooSoon: boolean; outside: string } {
  let openFence: string | undefined;
  let depth = 0;
  let closedTooSoon = false;
  const outside: string[] = [];
  for (const line of markdown.split("\n")) {
    if (openFence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === openFence[0] && close[1]!.length >= openFence.length) openFence = undefined;
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
      openFence = open[1];
      continue;
    }
    outside.push(line);
    for (const tag of line.match(/<\/?details\b/gi) ?? []) {
      depth += tag.startsWith("</") ? -1 : 1;
      if (depth < 0) closedTooSoon = true;
    }
  }
  return { openFence, depth, closedTooSoon, outside: outside.join("\n") };
}

export function expectBalanced(markdown: string): void {
  const s = structure(markdown);
  expect(s.openFence).toBeUndefined();
  expect(s.depth).toBe(0);
  expect(s.closedTooSoon).toBe(false);
}
