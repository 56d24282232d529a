import { count, dropHalfPair } from "./markdown.js";

/** GitHub's limit for an issue comment or a pull request body, in characters. */
export const COMMENT_LIMIT = 65_536;

/** A part of the document that may be shortened: a fence's content, or the Markdown lines inside a <details> section. */
interface Cuttable {
  text: string;
  /** tail: logs, whose error is at the end; head: code and lists, whose start says what they are; lines: Markdown, cut between lines. */
  keep: "head" | "tail" | "lines";
}
type Piece = string | Cuttable;
interface Fence {
  marker: string;
  info: string;
}

const SNAP = 500; // a cut moves to a line break when one is this close, so kept output starts and ends with whole lines
const note = (n: number): string =>
  `_(truncated: ${count(n)} characters of output not shown; see docs/generation_report.md on the branch)_`;

/**
 * Shortens Markdown to `limit` characters. It cuts the longest fenced and collapsed contents first,
 * all down to one common length (```text fences keep their end, where pytest puts the error; other
 * fences and <details> text keep their start), and only if that is not enough drops whole lines from
 * the end, closing any fence or <details> left open. A note at the end says how much went.
 */
export function fitToLimit(markdown: string, limit = COMMENT_LIMIT): string {
  if (markdown.length <= limit) return markdown;
  const budget = limit - note(markdown.length).length - 3; // "\n\n" before the note, "\n" after it
  if (budget < 0) return "_(truncated)_".length <= limit ? "_(truncated)_" : "";
  const pieces = splitPieces(markdown);
  const render = (cap: number): { text: string; removed: number } => {
    let removed = 0;
    const parts = pieces.map((piece) => {
      if (typeof piece === "string") return piece;
      const cut = cutTo(piece, cap);
      if (cut.text.length >= piece.text.length) return piece.text;
      removed += cut.removed;
      return cut.text;
    });
    return { text: parts.join("\n"), removed };
  };
  let best = render(0);
  if (best.text.length <= budget) {
    let lo = 0;
    let hi = pieces.reduce((max, p) => (typeof p === "string" ? max : Math.max(max, p.text.length)), 0);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const tried = render(mid);
      if (tried.text.length <= budget) [lo, best] = [mid, tried];
      else hi = mid - 1;
    }
  } else {
    const hard = cutLines(best.text, budget);
    best = { text: hard.text, removed: best.removed + hard.removed };
  }
  return `${best.text.trimEnd()}\n\n${note(best.removed)}\n`;
}

function splitPieces(markdown: string): Piece[] {
  const lines = markdown.split("\n");
  const pieces: Piece[] = [];
  let run: string[] = [];
  let depth = 0;
  const flush = (): void => {
    if (run.length > 0) pieces.push({ text: run.join("\n"), keep: "lines" });
    run = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = fenceOpening(line);
    if (fence) {
      flush();
      let end = i + 1;
      while (end < lines.length && !closesFence(lines[end]!, fence)) end++;
      pieces.push(line);
      const content = lines.slice(i + 1, end).join("\n");
      // A cut chart would not render at all; charts are small, so they stay whole.
      if (end > i + 1) pieces.push(fence.info === "mermaid" ? content : { text: content, keep: fence.info === "text" ? "tail" : "head" });
      pieces.push(lines[end] ?? fence.marker); // an unclosed fence is closed
      i = end;
    } else if (depth > 0 && !/<\/?(details|summary)\b/i.test(line)) {
      run.push(line);
    } else {
      flush();
      pieces.push(line);
      depth = Math.max(0, depth + detailsBalance(line));
    }
  }
  flush();
  return pieces;
}

function cutTo(piece: Cuttable, cap: number): { text: string; removed: number } {
  const { text } = piece;
  if (piece.keep === "lines") {
    const lines = text.split("\n");
    let used = -1;
    let kept = 0;
    while (kept < lines.length && used + 1 + lines[kept]!.length <= cap) used += 1 + lines[kept++]!.length;
    const head = lines.slice(0, kept).join("\n");
    const marker = `_(${count(text.length - head.length)} characters cut)_`;
    return { text: `${head}\n\n${marker}\n`, removed: text.length - head.length };
  }
  if (piece.keep === "tail") {
    const start = text.length - cap;
    let tail = text.slice(start);
    const newline = tail.indexOf("\n");
    if (text[start - 1] !== "\n" && newline >= 0 && newline < SNAP) tail = tail.slice(newline + 1);
    tail = dropHalfPair(tail, "start");
    const removed = text.length - tail.length;
    return { text: `[... ${count(removed)} characters cut ...]${tail ? `\n${tail}` : ""}`, removed };
  }
  let head = text.slice(0, cap);
  const newline = head.lastIndexOf("\n");
  if (text[cap] !== "\n" && newline >= 0 && head.length - newline < SNAP) head = head.slice(0, newline);
  head = dropHalfPair(head, "end");
  const removed = text.length - head.length;
  return { text: `${head ? `${head}\n` : ""}[... ${count(removed)} characters cut ...]`, removed };
}

/** The last resort: whole lines from the start while they fit, then whatever closes the fence and <details> left open. */
function cutLines(text: string, budget: number): { text: string; removed: number } {
  const kept: string[] = [];
  let length = 0;
  let fence: Fence | undefined;
  let depth = 0;
  let closing = "";
  for (const line of text.split("\n")) {
    let nextFence = fence;
    let nextDepth = depth;
    if (fence) nextFence = closesFence(line, fence) ? undefined : fence;
    else nextFence = fenceOpening(line);
    if (!fence && !nextFence) nextDepth = Math.max(0, depth + detailsBalance(line));
    const nextClosing = `${nextFence ? `\n${nextFence.marker}` : ""}${"\n</details>".repeat(nextDepth)}`;
    const added = (kept.length > 0 ? 1 : 0) + line.length;
    if (length + added + nextClosing.length > budget) break;
    kept.push(line);
    [length, fence, depth, closing] = [length + added, nextFence, nextDepth, nextClosing];
  }
  return { text: kept.join("\n") + closing, removed: text.length - length };
}

function fenceOpening(line: string): Fence | undefined {
  const match = /^[ \t]*(`{3,}|~{3,})(.*)$/.exec(line);
  if (!match || (match[1]![0] === "`" && match[2]!.includes("`"))) return undefined;
  return { marker: match[1]!, info: match[2]!.trim().split(/\s+/)[0]!.toLowerCase() };
}

function closesFence(line: string, fence: Fence): boolean {
  const match = /^[ \t]*(`{3,}|~{3,})[ \t\r]*$/.exec(line);
  return !!match && match[1]![0] === fence.marker[0] && match[1]!.length >= fence.marker.length;
}

const detailsBalance = (line: string): number => (line.match(/<details\b/gi) ?? []).length - (line.match(/<\/details\s*>/gi) ?? []).length;
