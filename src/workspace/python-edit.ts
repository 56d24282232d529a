import type { TopLevelStatement } from "./python-outline.js";

/**
 * Edits of Python source at the level of top-level symbols, given the file's outline.
 * Everything outside the edited symbol keeps its bytes: other nodes' code in the same
 * file, and their imports, stay exactly as they were.
 */
export function replaceSymbol(source: string, outline: readonly TopLevelStatement[], name: string, code: string): string {
  const lines = splitLines(source);
  const existing = outline.find((s) => (s.kind === "def" || s.kind === "class" || s.kind === "assign") && s.name === name);
  const block = code.replace(/\s+$/, "").split("\n");
  if (!existing) {
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
    const gap = lines.length > 0 ? ["", ""] : [];
    return `${[...lines, ...gap, ...block].join("\n")}\n`;
  }
  lines.splice(existing.start - 1, existing.end - existing.start + 1, ...block);
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}

/**
 * Puts a method into its class: `code` is written at top-level indentation and indented to
 * the class body; it replaces the method of that name, or follows the class's last line.
 * Everything outside the method keeps its bytes.
 */
export function replaceMember(source: string, klass: TopLevelStatement, name: string, code: string): string {
  const lines = splitLines(source);
  const pad = " ".repeat(klass.indent ?? 4);
  const block = code
    .replace(/\s+$/, "")
    .split("\n")
    .map((line) => (line.trim() === "" ? "" : `${pad}${line}`));
  const existing = klass.members?.find((m) => m.name === name);
  if (existing) lines.splice(existing.start - 1, existing.end - existing.start + 1, ...block);
  else lines.splice(klass.end, 0, "", ...block);
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}

/** The method's lines as written at top-level indentation (to carry it into a new version of its class). */
export function memberCode(source: string, klass: TopLevelStatement, name: string): string | undefined {
  const member = klass.members?.find((m) => m.name === name);
  if (!member) return undefined;
  const pad = klass.indent ?? 4;
  return splitLines(source)
    .slice(member.start - 1, member.end)
    .map((line) => line.slice(Math.min(pad, line.length - line.trimStart().length)))
    .join("\n");
}

/**
 * Adds the import lines the file does not have yet, after the module docstring,
 * `from __future__` imports and existing imports at the top, so that PEP 8's order of
 * the existing block is not disturbed.
 */
export function addImports(source: string, outline: readonly TopLevelStatement[], imports: readonly string[]): string {
  const lines = splitLines(source);
  const present = new Set(lines.map((l) => l.trim()));
  const missing = [...new Set(imports.map((i) => i.trim()))].filter((i) => i !== "" && !present.has(i));
  if (missing.length === 0) return source;
  let after = 0;
  for (const statement of outline) {
    if (statement.kind === "docstring" || statement.kind === "future" || statement.kind === "import") after = statement.end;
    else break;
  }
  // A new import block at the top of a file is followed by two blank lines before the first definition (PEP 8).
  const insert = after === 0 ? [...missing, "", ""] : missing;
  lines.splice(after, 0, ...insert);
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}

/**
 * The same edits in Python, for the code application's script (src/engine/application-script.ts), which puts
 * a symbol in place and parses the result in one call: `replace_symbol`, `replace_member`, `member_code` and
 * `add_imports`, each writing what its TypeScript namesake above writes (tests/engine/code-application.test.ts
 * holds them to it). Outlines are `outline()`'s dicts; `js_trim` and `JS_SPACE` come from JS_TEXT_PY.
 */
export const EDIT_PY = String.raw`

def split_lines(source):
    if source == "":
        return []
    text = source.replace("\r\n", "\n")
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def replace_symbol(source, statements, name, code):
    lines = split_lines(source)
    existing = next((s for s in statements if s["kind"] in ("def", "class", "assign") and s["name"] == name), None)
    block = code.rstrip(JS_SPACE).split("\n")
    if existing is None:
        while lines and js_trim(lines[-1]) == "":
            lines.pop()
        return "\n".join(lines + (["", ""] if lines else []) + block) + "\n"
    lines[existing["start"] - 1 : existing["end"]] = block
    return "\n".join(lines).rstrip("\n") + "\n"


def class_indent(klass):
    return klass["indent"] if klass.get("indent") is not None else 4


def replace_member(source, klass, name, code):
    lines = split_lines(source)
    pad = " " * class_indent(klass)
    block = ["" if js_trim(line) == "" else pad + line for line in code.rstrip(JS_SPACE).split("\n")]
    existing = next((m for m in klass.get("members") or [] if m["name"] == name), None)
    if existing is not None:
        lines[existing["start"] - 1 : existing["end"]] = block
    else:
        lines[klass["end"] : klass["end"]] = [""] + block
    return "\n".join(lines).rstrip("\n") + "\n"


def member_code(source, klass, name):
    member = next((m for m in klass.get("members") or [] if m["name"] == name), None)
    if member is None:
        return None
    pad = class_indent(klass)
    lines = split_lines(source)[member["start"] - 1 : member["end"]]
    return "\n".join(line[min(pad, len(line) - len(line.lstrip(JS_SPACE))) :] for line in lines)


def add_imports(source, statements, imports):
    lines = split_lines(source)
    present = {js_trim(line) for line in lines}
    missing = [line for line in dict.fromkeys(js_trim(i) for i in imports) if line != "" and line not in present]
    if not missing:
        return source
    after = 0
    for statement in statements:
        if statement["kind"] not in ("docstring", "future", "import"):
            break
        after = statement["end"]
    lines[after:after] = missing + (["", ""] if after == 0 else [])
    return "\n".join(lines).rstrip("\n") + "\n"
`;

/**
 * A stand-in for a symbol that is not written yet: importable, and failing loudly when used.
 * A constant's stand-in is NotImplemented, which no test of its value accepts.
 */
export function stubFor(name: string, kind: "function" | "class" | "constant" | "method"): string {
  const message = JSON.stringify(`${name} is not implemented yet`);
  if (kind === "constant") return `${name} = NotImplemented\n`;
  if (kind === "method") return `def ${name}(self, *args, **kwargs):\n    raise NotImplementedError(${message})\n`;
  return kind === "class"
    ? `class ${name}:\n    def __init__(self, *args, **kwargs):\n        raise NotImplementedError(${message})\n`
    : `def ${name}(*args, **kwargs):\n    raise NotImplementedError(${message})\n`;
}

function splitLines(source: string): string[] {
  if (source === "") return [];
  return source.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
}
