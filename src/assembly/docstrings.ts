import { normalizePath, packageDirectory } from "../rpg/paths.js";
import type { Rpg } from "../rpg/schema.js";

// Python source cannot hold a lone surrogate (not UTF-8) and turns \r into a newline, so
// these, the other C0 controls and DEL are written as escapes; the docstring's value is the same.
// eslint-disable-next-line no-control-regex
const ESCAPED = /[\u0000-\u0008\u000b-\u001f\u007f\\]|"(?="")|"$/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A docstring literal for `text`, PEP 257 style: one line as `"""Text."""`, several with
 * the closing quotes on a line of their own. The RPG's text is data: backslashes, quotes
 * that would close the literal and control characters are escaped, so it cannot end the
 * string early or change what follows it.
 */
export function pythonDocstring(text: string): string {
  const body = text
    .replace(/\r\n?/g, "\n")
    .replace(LONE_SURROGATE, "\ufffd")
    .trim()
    .replace(ESCAPED, (c) => (c === "\\" || c === '"' ? `\\${c}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
  return body.includes("\n") ? `"""${body}\n"""` : `"""${body}"""`;
}

/** Lines that must stay first in a module: a shebang on line 1, an encoding declaration on line 1 or 2 (PEP 263). */
function headerLength(source: string): number {
  let end = 0;
  for (let line = 0; line < 2; line++) {
    const next = source.indexOf("\n", end);
    const text = next === -1 ? source.slice(end) : source.slice(end, next);
    const keep = (line === 0 && text.startsWith("#!")) || /^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+/.test(text);
    if (!keep || next === -1) break;
    end = next + 1;
  }
  return end;
}

/**
 * `source` with `docstring` as its module docstring, after any shebang and encoding line.
 * Everything else is kept byte for byte: the result is the source with one block inserted.
 * `hasDocstring` says whether the module already starts with one (from Python's parser),
 * in which case the source is returned as it is: the model's or an earlier run's docstring stays.
 */
export function withModuleDocstring(source: string, docstring: string, hasDocstring: boolean): string {
  if (hasDocstring || docstring.trim() === "") return source;
  const at = headerLength(source);
  const rest = source.slice(at);
  return `${source.slice(0, at)}${pythonDocstring(docstring)}\n${rest === "" || rest.startsWith("\n") ? "" : "\n"}${rest}`;
}

/** The docstring of each module composite, by the module's file (package composites are in packageDocstrings). */
export function moduleDocstrings(rpg: Pick<Rpg, "nodes">): Map<string, string> {
  const docs = new Map<string, string>();
  for (const node of rpg.nodes) {
    const path = normalizePath(node.file_path);
    if (node.node_type !== "composite" || node.type !== "module" || !path.endsWith(".py") || path.endsWith("/__init__.py")) continue;
    if (node.docstring.trim() !== "" && !docs.has(path)) docs.set(path, node.docstring);
  }
  return docs;
}

/** The docstring of each package composite, by the package's directory. */
export function packageDocstrings(rpg: Pick<Rpg, "nodes">): Map<string, string> {
  const docs = new Map<string, string>();
  for (const node of rpg.nodes) {
    if (node.node_type !== "composite" || node.type !== "package") continue;
    const dir = packageDirectory(node.file_path);
    if (node.docstring.trim() !== "" && !docs.has(dir)) docs.set(dir, node.docstring);
  }
  return docs;
}
