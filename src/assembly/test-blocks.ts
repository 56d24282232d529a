/**
 * Several nodes of one module share a test file; each node's tests live in a block
 * between marker comments, so that regenerating one node's tests replaces its block
 * and nothing else.
 *
 * The node id in a marker is encoded: an id holding a line break would otherwise end
 * the comment and put the rest of the id in the file as Python. Ids of plain characters
 * encode to themselves, so markers written before the encoding still match.
 */
const begin = (encodedId: string): string => `# --- rpg-forge tests: ${encodedId} ---`;
const end = (encodedId: string): string => `# --- end rpg-forge tests: ${encodedId} ---`;

const PLAIN = /^[A-Za-z0-9._:/-]$/;

/**
 * The id as it appears in a marker: characters outside [A-Za-z0-9._:/-] become `%XX`
 * per UTF-8 byte (`%` itself too, so the encoding is one-to-one), a lone surrogate `%uXXXX`.
 */
export function encodeNodeId(nodeId: string): string {
  let out = "";
  for (const ch of nodeId) {
    if (PLAIN.test(ch)) out += ch;
    else if (/^[\uD800-\uDFFF]$/.test(ch)) out += `%u${ch.charCodeAt(0).toString(16).toUpperCase()}`;
    else for (const byte of Buffer.from(ch, "utf8")) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The line range (1-based, inclusive, markers included) of a node's block, if there is one. */
export function findTestBlock(source: string, nodeId: string): { start: number; end: number } | undefined {
  const lines = source.split("\n");
  const encoded = encodeNodeId(nodeId);
  const found = blockIn(lines, encoded);
  // Blocks written before ids were encoded carry the raw id. Only ids without a line
  // break (which never made a one-line marker) or a `%` (whose raw form could be
  // another id's encoded form) are looked up that way.
  if (found || encoded === nodeId || /[\r\n%]/.test(nodeId)) return found;
  return blockIn(lines, nodeId);
}

function blockIn(lines: string[], markerId: string): { start: number; end: number } | undefined {
  const start = lines.indexOf(begin(markerId));
  const stop = lines.indexOf(end(markerId), start + 1);
  return start >= 0 && stop > start ? { start: start + 1, end: stop + 1 } : undefined;
}

/** Puts `code` in the node's block, replacing the block if it exists or appending it. */
export function upsertTestBlock(source: string, nodeId: string, code: string): string {
  const encoded = encodeNodeId(nodeId);
  const block = [begin(encoded), code.replace(/\s+$/, ""), end(encoded)];
  const lines = source === "" ? [] : source.replace(/\n+$/, "").split("\n");
  const existing = findTestBlock(source, nodeId);
  if (existing) lines.splice(existing.start - 1, existing.end - existing.start + 1, ...block);
  else lines.push(...(lines.length > 0 ? ["", ""] : []), ...block);
  return `${lines.join("\n")}\n`;
}

/** The file without these nodes' blocks (and the blank lines that set them apart); the rest keeps its bytes. */
export function withoutTestBlocks(source: string, nodeIds: readonly string[]): string {
  let out = source;
  for (const id of nodeIds) {
    const block = findTestBlock(out, id);
    if (!block) continue;
    const lines = out.replace(/\n+$/, "").split("\n");
    let start = block.start - 1;
    while (start > 0 && lines[start - 1]!.trim() === "") start--;
    lines.splice(start, block.end - start);
    while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
    out = lines.length === 0 ? "" : `${lines.join("\n")}\n`;
  }
  return out;
}

// Any comment line naming "rpg-forge tests", however spaced or cased: stricter than
// findTestBlock's exact match on purpose, so that near misses are refused too.
const MARKER_LIKE = /^\s*#.*rpg[\s_-]*forge[\s_-]*tests?\b/i;
// Python ends lines at \r\n, \r and \n; str.splitlines also at these, so split there as well.
// eslint-disable-next-line no-control-regex -- these control characters are the point
const OTHER_BREAKS = /[\v\f\x1c-\x1e\x85\u2028\u2029]/;

/** 1-based numbers of the lines (as Python counts them) that look like a test-block marker. */
export function testMarkerLines(text: string): number[] {
  const hits: number[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    if (line.split(OTHER_BREAKS).some((piece) => MARKER_LIKE.test(piece))) hits.push(i + 1);
  });
  return hits;
}

/**
 * True when any line of `text` looks like a test-block marker. Such a line in a reply,
 * even inside a string, would split a block when it is later found and replaced, and
 * turn what follows it into live code; replies holding one are refused.
 */
export function containsTestMarker(text: string): boolean {
  return testMarkerLines(text).length > 0;
}
