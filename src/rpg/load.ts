import { readFile } from "node:fs/promises";
import { findNodeAtLocation, parseTree, printParseErrorCode, type ParseError } from "jsonc-parser";
import { rpgError, type Loaded, type RpgIssue } from "./issues.js";
import type { Rpg } from "./schema.js";
import { checkShape } from "./shape.js";
import { validateRpg } from "./validate.js";

/**
 * Parses and validates RPG text. Every problem comes back at once, each with the
 * file, line and column it is about; nothing is thrown for bad input.
 */
export function parseRpgText(text: string, file: string): Loaded<Rpg> {
  // Some Windows editors start UTF-8 files with a byte order mark; it is not part of the JSON.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const tooDeep = nestingIssue(text, file);
  if (tooDeep) return { ok: false, issues: [tooDeep] };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, issues: [syntaxIssue(text, file)] };
  }
  const shape = checkShape(data);
  const issues = [...shape.issues];
  // Semantic checks only make sense on a graph whose every node has the right shape;
  // otherwise a malformed node would surface again as a dangling reference.
  if (!issues.some((i) => i.severity === "error")) issues.push(...validateRpg(shape.rpg));
  locate(issues, text, file);
  const errors = issues.filter((i) => i.severity === "error");
  if (errors.length > 0) return { ok: false, issues };
  return { ok: true, value: shape.rpg, warnings: issues };
}

/** Reads and checks an RPG file; a missing or unreadable file is an issue like any other. */
export async function loadRpg(file: string): Promise<Loaded<Rpg>> {
  return (await loadRpgWithText(file)).loaded;
}

/** loadRpg, also returning the file's text (what a run's hash is taken of); the text is "" when unreadable. */
export async function loadRpgWithText(file: string): Promise<{ loaded: Loaded<Rpg>; text: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    return { loaded: { ok: false, issues: [rpgError("RPG_UNREADABLE", `cannot read the RPG: ${reason}`, { file })] }, text: "" };
  }
  let text: string;
  try {
    // Fatal: a stray Latin-1 byte must be an error naming its line, not a U+FFFD inside a docstring.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const line = firstBadUtf8Line(bytes);
    const issue = rpgError("RPG_JSON_SYNTAX", `not valid JSON: line ${line} is not valid UTF-8 (save the file as UTF-8)`, { file, line });
    return { loaded: { ok: false, issues: [issue] }, text: "" };
  }
  return { loaded: parseRpgText(text, file), text };
}

/** 1-based line of the first invalid UTF-8 sequence. A newline byte never occurs inside a multi-byte character, so each line decodes alone. */
function firstBadUtf8Line(bytes: Uint8Array): number {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let line = 1;
  for (let start = 0; start <= bytes.length; line++) {
    const end = bytes.indexOf(10, start);
    const stop = end < 0 ? bytes.length : end;
    try {
      decoder.decode(bytes.subarray(start, stop));
    } catch {
      return line;
    }
    if (end < 0) break;
    start = end + 1;
  }
  return line;
}

/**
 * Far deeper than an RPG needs (a node's examples sit at depth 4), and shallow enough for every
 * recursive reader after the parser: 100,000 "[" would otherwise overflow the stack.
 */
const MAX_DEPTH = 256;

/** The first place where arrays and objects nest deeper than MAX_DEPTH, as an issue; one pass, strings skipped. */
function nestingIssue(text: string, file: string): RpgIssue | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) {
        const { line, column } = lineIndex(text)(i);
        const message = `not valid JSON: arrays and objects nest deeper than ${MAX_DEPTH} levels at line ${line}, column ${column}`;
        return rpgError("RPG_JSON_SYNTAX", message, { file, line, column });
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

function syntaxIssue(text: string, file: string): RpgIssue {
  const errors: ParseError[] = [];
  parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  const offset = first?.offset ?? text.length;
  const { line, column } = lineIndex(text)(offset);
  const what = first ? describeParseError(printParseErrorCode(first.error)) : "unexpected content";
  return rpgError("RPG_JSON_SYNTAX", `not valid JSON: ${what} at line ${line}, column ${column}`, { file, line, column });
}

function describeParseError(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

/** Fills in file, line and column from each issue's JSON pointer (parsed once, only when there is something to locate). */
function locate(issues: RpgIssue[], text: string, file: string): void {
  if (issues.length === 0) return;
  const root = parseTree(text);
  const lineAndColumn = lineIndex(text);
  for (const issue of issues) {
    issue.at.file = file;
    if (!root || !issue.pointer) continue;
    let pointer = issue.pointer;
    let node = findNodeAtLocation(root, pointer);
    // A missing field has no place of its own: point at the object it is missing from.
    while (!node && pointer.length > 0) {
      pointer = pointer.slice(0, -1);
      node = findNodeAtLocation(root, pointer);
    }
    if (!node) continue;
    const { line, column } = lineAndColumn(node.parent?.type === "property" ? node.parent.offset : node.offset);
    issue.at.line = line;
    issue.at.column = column;
  }
}

/** Offset -> 1-based line and column, by binary search over the line starts (one pass over the text). */
function lineIndex(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}
