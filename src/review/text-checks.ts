import { testMarkerLines } from "../assembly/test-blocks.js";
import { count } from "../report/markdown.js";
import type { ReviewRule } from "./rules.js";

/** One part of a reply: the implementation's code, its imports or its support code, or the tests. */
export interface ReplyPart {
  name: "code" | "imports" | "support";
  source: string;
}

export interface TextFinding {
  rule: ReviewRule;
  line: number;
  message: string;
  part: ReplyPart["name"];
}

export const MAX_REPLY_BYTES = 1_000_000;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// PEP 263, as the tokenizer reads it on a file's first two lines. A reply's lines can
// land there (a test block's first line follows its marker comment), so every line counts.
const CODING_COOKIE = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;
const UTF8 = /^utf[-_]?8([-_].*)?$/i;

/**
 * What is refused before Python is started: a reply too large to parse quickly, one that
 * is not text (a lone surrogate crashes python3's stdin decoding), and lines that would
 * change the file around the reply (a forged block marker, a coding comment).
 */
export function textFindings(parts: readonly ReplyPart[]): TextFinding[] {
  const bytes = parts.reduce((sum, p) => sum + Buffer.byteLength(p.source, "utf8"), 0);
  if (bytes > MAX_REPLY_BYTES) {
    const message = `the reply is ${count(bytes)} bytes, over the limit of ${count(MAX_REPLY_BYTES)}`;
    return [{ rule: "reply-too-large", line: 0, message, part: "code" }];
  }
  const found: TextFinding[] = [];
  for (const { name, source } of parts) {
    const lone = LONE_SURROGATE.exec(source);
    if (lone) {
      const unit = lone[0].charCodeAt(0).toString(16);
      found.push({
        rule: "lone-surrogate",
        line: lineAt(source, lone.index),
        message: `a lone surrogate \\u${unit} is not text`,
        part: name,
      });
      continue;
    }
    for (const line of testMarkerLines(source))
      found.push({ rule: "marker-forgery", line, message: "a line looks like an rpg-forge test-block marker", part: name });
    source.split(/\r\n|\r|\n/).forEach((text, i) => {
      const cookie = CODING_COOKIE.exec(text);
      if (cookie && !UTF8.test(cookie[1]!))
        found.push({ rule: "coding-cookie", line: i + 1, message: `the coding comment would decode the file as ${cookie[1]}`, part: name });
    });
  }
  return found;
}

function lineAt(source: string, index: number): number {
  return (source.slice(0, index).match(/\r\n|\r|\n/g) ?? []).length + 1;
}
