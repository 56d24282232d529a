/**
 * Markdown that stays inert whatever text it quotes: code spans and fences that no backtick in the
 * text can close, model or test text escaped to one plain line, and table cells a pipe cannot split.
 */

/** A code span that no backtick in the text can close; one line, since spans in table cells cannot wrap. */
export function code(text: string): string {
  const line = text.replace(/\s+/g, " ");
  if (line.trim() === "") return "` `";
  const ticks = "`".repeat(longestRun(line, "`") + 1);
  const pad = line.startsWith("`") || line.endsWith("`") ? " " : "";
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/** A fenced block longer than any backtick run in the content, so quoted output cannot close it. */
export function fenced(content: string, info = ""): string {
  const ticks = "`".repeat(Math.max(3, longestRun(content, "`") + 1));
  return `${ticks}${info}\n${content.trimEnd()}\n${ticks}`;
}

/**
 * Model or test text as one line of inert Markdown: markup escaped, HTML shown as text,
 * "@name" broken with a zero-width space, since "added @property" must not notify a user,
 * and "https://" and "www." broken the same way, since GitHub links them even without brackets.
 */
export function prose(text: string, max = 1000): string {
  return escapeHtml(clip(text.replace(/\s+/g, " ").trim(), max).replace(/[\\`*_[\]~|]/g, "\\$&"))
    .replace(/@(?=\w)/g, "@\u200b")
    .replace(/:\/\//g, ":\u200b//")
    .replace(/\bwww\./gi, (www) => `${www.slice(0, 3)}\u200b.`);
}

/** A collapsed section; the summary is shown as text, the body is Markdown the caller made safe. */
export const details = (summary: string, body: string[]): string[] => [
  "",
  `<details><summary>${escapeHtml(summary)}</summary>`,
  "",
  ...body,
  "",
  "</details>",
];

/** A table row; a pipe inside a cell is escaped so it cannot split the row. */
export const row = (cells: string[]): string => `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;

/**
 * A whole number as people read it: 12,345. Not toLocaleString("en-US"), whose first call loads ICU's number formats:
 * 20–40 ms of every CLI and Action run that renders a report.
 */
export const count = (n: number): string => (Number.isInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ",") : n.toLocaleString("en-US"));

/** At most `max` characters, the cut marked with "…". */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${dropHalfPair(text.slice(0, max - 1), "end")}…`;
}

/** Cutting a string can split a surrogate pair; drop the stranded half. */
export function dropHalfPair(text: string, at: "start" | "end"): string {
  const unit = text.charCodeAt(at === "start" ? 0 : text.length - 1);
  if (at === "end" && unit >= 0xd800 && unit <= 0xdbff) return text.slice(0, -1);
  if (at === "start" && unit >= 0xdc00 && unit <= 0xdfff) return text.slice(1);
  return text;
}

const longestRun = (text: string, char: string): number =>
  (text.match(new RegExp(`${char}+`, "g")) ?? []).reduce((max, run) => Math.max(max, run.length), 0);

const escapeHtml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
