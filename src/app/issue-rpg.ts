/**
 * Which graph an issue labeled for generation asks for (decision 0015): a graph pasted into its
 * body as a fenced block, or a path named on an `rpg:` line, or neither (then the configured one).
 * Pure, and linear in the body's length: the body is whatever its author wrote.
 */

/** A fenced code block at the top level of a Markdown text (CommonMark's rules, without containers). */
export interface FencedBlock {
  /** The first word of the info string, lower-cased ("" when there is none). */
  language: string;
  /** The lines between the fences, the opening fence's indentation removed, joined by "\n". */
  content: string;
  /** 1-based line of the body where the content starts. */
  line: number;
}

export type IssueRpg =
  /** A graph in the body; `path`, when an `rpg:` line names one, is where it is committed. */
  | { kind: "text"; text: string; line: number; path: string | undefined }
  /** A graph in the repository: the one an `rpg:` line names, or (undefined) the configured one. */
  | { kind: "path"; path: string | undefined };

const OPENING = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const PATH_LINE = /^ {0,3}rpg:[ \t]*(`?)([^`\s]+)\1[ \t]*$/i;

/** The fenced blocks of a Markdown text, and its lines outside them. */
function scan(markdown: string): { blocks: FencedBlock[]; outside: string[] } {
  const lines = markdown.split(/\r\n|\r|\n/);
  const blocks: FencedBlock[] = [];
  const outside: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING.exec(lines[i]!);
    const [, indent = "", fence = "", info = ""] = open ?? [];
    // A backtick fence's info string holds no backtick: "```a```" is inline code.
    if (!open || (fence[0] === "`" && info.includes("`"))) {
      outside.push(lines[i]!);
      continue;
    }
    const closing = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*$`);
    const content: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !closing.test(lines[j]!); j++) content.push(stripIndent(lines[j]!, indent.length));
    blocks.push({ language: (info.trim().split(/\s+/)[0] ?? "").toLowerCase(), content: content.join("\n"), line: i + 2 });
    i = j;
  }
  return { blocks, outside };
}

/**
 * The fenced blocks of `markdown`, in order. A fence is 3+ backticks or tildes indented at most three
 * spaces; it closes at a line of the same character, at least as long, with nothing else but spaces,
 * or at the end of the text. Blocks inside block quotes or list items are not looked for.
 */
export function fencedBlocks(markdown: string): FencedBlock[] {
  return scan(markdown).blocks;
}

/** Up to `width` leading spaces off a line, as CommonMark takes the opening fence's indentation off its content. */
function stripIndent(line: string, width: number): string {
  let n = 0;
  while (n < width && line[n] === " ") n++;
  return line.slice(n);
}

/**
 * The graph an issue body asks for. The RPG is the first block fenced as `json`; when no block is, the first
 * block without an info string whose text starts with `{`. A block found is the graph, valid or not: its
 * problems are reported rather than a path used instead. The first `rpg: <path>` line outside blocks names
 * the path (in backticks or not): where a pasted graph is committed, or the graph in the repository to use.
 */
export function issueRpg(body: string): IssueRpg {
  const { blocks, outside } = scan(body);
  const block = blocks.find((b) => b.language === "json") ?? blocks.find((b) => b.language === "" && b.content.trimStart().startsWith("{"));
  const path = outside.map((line) => PATH_LINE.exec(line)?.[2]).find((p) => p !== undefined);
  return block ? { kind: "text", text: block.content, line: block.line, path } : { kind: "path", path };
}

/**
 * Why a path from an issue cannot be used, or undefined when it can: it must stay inside the repository
 * (relative, no `..`) as a plain POSIX path, and out of `.github/`, where the App does not write and whose
 * files decide what runs.
 */
export function issuePathProblem(path: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return "must be a plain POSIX path (no backslashes or control characters)";
  if (path.startsWith("/")) return "must be relative to the repository's root";
  const segments = path.split("/");
  if (segments.some((s) => s === ".." || s === "." || s === ""))
    return "must be a path inside the repository, without . or .. or empty segments";
  if (segments[0]!.toLowerCase() === ".github") return "must not be inside .github/";
  return undefined;
}
