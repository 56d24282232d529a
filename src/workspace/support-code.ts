import { runPythonScript } from "../python-helpers/run-script.js";

/**
 * A node's module-level support code (issue 14): what real modules hold beside a function,
 * such as private helpers and constants, compiled patterns and the calls that register a
 * rule in a table. It is read with Python's parser (never run): each statement is classed,
 * the names it binds collected, and it is put before the node's symbol, or after it when it
 * uses the symbol (`register(plural)` must follow `def plural`).
 */
const SUPPORT_SCRIPT = String.raw`
import ast, json, re, sys
req = json.loads(sys.stdin.read())
src, symbol = req["support"], req["symbol"]
try:
    body = ast.parse(src).body
except SyntaxError as e:
    print(json.dumps({"ok": False, "problems": ["the support code does not parse: line %d: %s" % (e.lineno or 0, e.msg)]}))
    sys.exit(0)
lines = src.splitlines()
names, problems, sides = [], [], []
def private(name):
    return name.startswith("_") and not name.startswith("__")
for node in body:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    bound = []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        bound = [node.name]
    elif isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            elts = t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]
            if not all(isinstance(e, ast.Name) for e in elts):
                problems.append("line %d: only plain names may be assigned beside the symbol" % node.lineno)
            bound += [e.id for e in elts if isinstance(e, ast.Name)]
    elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        problems.append("line %d: beside the symbol stand only private helpers, private constants and calls that register them; imports go in \"imports\"" % node.lineno)
        continue
    for name in bound:
        if not private(name):
            problems.append('line %d: "%s" must start with "_": support code is private to its node' % (node.lineno, name))
    names += bound
    uses = any(isinstance(n, ast.Name) and n.id == symbol for n in ast.walk(node))
    sides.append(("after" if uses else "before", start, node.end_lineno))
# Neighbours on one side stay one chunk, as written (their spacing is the author's); chunks are set apart by two blank lines.
chunks = {"before": [], "after": []}
for i, (side, start, end) in enumerate(sides):
    if i > 0 and sides[i - 1][0] == side:
        chunks[side][-1] = (chunks[side][-1][0], end)
    else:
        chunks[side].append((start, end))
text = lambda c: "\n".join(lines[c[0] - 1 : c[1]])
print(json.dumps({"ok": not problems, "problems": problems, "names": names,
                  "before": [text(c) for c in chunks["before"]], "after": [text(c) for c in chunks["after"]]}))
`;

export type SupportCode = { ok: true; names: string[]; before: string[]; after: string[] } | { ok: false; problems: string[] };

/** Reads support code for the node whose symbol is `symbol`: what it binds, and what goes before and after the symbol. */
export async function readSupportCode(python: string, support: string, symbol: string): Promise<SupportCode> {
  if (support.trim() === "") return { ok: true, names: [], before: [], after: [] };
  return JSON.parse(await runPythonScript(python, SUPPORT_SCRIPT, JSON.stringify({ support, symbol }))) as SupportCode;
}

/** The module with support code laid around the symbol that spans `start`..`end` (1-based, inclusive), set apart as PEP 8 wants. */
export function placeSupportCode(source: string, start: number, end: number, support: { before: string[]; after: string[] }): string {
  if (support.before.length === 0 && support.after.length === 0) return source;
  const lines = source.replace(/\n$/, "").split("\n");
  const block = (parts: string[]): string[] => parts.flatMap((p, i) => [...(i > 0 ? ["", ""] : []), ...p.split("\n")]);
  const head = lines.slice(0, start - 1);
  const symbol = lines.slice(start - 1, end);
  const tail = lines.slice(end);
  const before = support.before.length > 0 ? [...block(support.before), "", ""] : [];
  const after = support.after.length > 0 ? ["", "", ...block(support.after)] : [];
  return `${[...head, ...before, ...symbol, ...after, ...tail].join("\n")}\n`;
}
