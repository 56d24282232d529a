/**
 * Several nodes of one module share a test file; each node's tests live in a block
 * between marker comments, so that regenerating one node's tests replaces its block
 * and nothing else.
 */
const begin = (nodeId: string): string => `# --- rpg-forge tests: ${nodeId} ---`;
const end = (nodeId: string): string => `# --- end rpg-forge tests: ${nodeId} ---`;

/** The line range (1-based, inclusive, markers included) of a node's block, if there is one. */
export function findTestBlock(source: string, nodeId: string): { start: number; end: number } | undefined {
  const lines = source.split("\n");
  const start = lines.indexOf(begin(nodeId));
  const stop = lines.indexOf(end(nodeId), start + 1);
  return start >= 0 && stop > start ? { start: start + 1, end: stop + 1 } : undefined;
}

/** Puts `code` in the node's block, replacing the block if it exists or appending it. */
export function upsertTestBlock(source: string, nodeId: string, code: string): string {
  const block = [begin(nodeId), code.replace(/\s+$/, ""), end(nodeId)];
  const lines = source === "" ? [] : source.replace(/\n+$/, "").split("\n");
  const existing = findTestBlock(source, nodeId);
  if (existing) lines.splice(existing.start - 1, existing.end - existing.start + 1, ...block);
  else lines.push(...(lines.length > 0 ? ["", ""] : []), ...block);
  return `${lines.join("\n")}\n`;
}
