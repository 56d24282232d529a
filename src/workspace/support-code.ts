import { runPythonScript } from "../python-helpers/run-script.js";

/**
 * A node's module-level support code (issue 14): what real modules hold beside a function,
 * such as private helpers and constants, compiled patterns and the calls that register a
 * rule in a table. It is read with Python's parser (never run): each statement is classed,
 * the names it binds collected, and it is put before the node's symbol, or after it when it
 * uses the symbol (`register(plural)` must follow `def plural`). The Python defines functions,
 * `read_support` and `place_support_code`, so that the code application's script runs them too.
 */
export const SUPPORT_PY = String.raw`
import ast, json, re, sys


def read_support(src, symbol):
    """What support code binds, and its chunks before and after the symbol; or its problems."""
    try:
        body = ast.parse(src).body
    except SyntaxError as e:
        return {"ok": False, "problems": ["the support code does not parse: line %d: %s" % (e.lineno or 0, e.msg)]}
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
    return {"ok": not problems, "problems": problems, "names": names,
            "before": [text(c) for c in chunks["before"]], "after": [text(c) for c in chunks["after"]]}


def place_support_code(source, start, end, support):
    # The module with support code laid around the symbol that spans start..end (1-based, inclusive), set apart as PEP 8 wants.
    if not support["before"] and not support["after"]:
        return source
    lines = (source[:-1] if source.endswith("\n") else source).split("\n")
    def block(parts):
        out = []
        for i, part in enumerate(parts):
            out += (["", ""] if i > 0 else []) + part.split("\n")
        return out
    before = block(support["before"]) + ["", ""] if support["before"] else []
    after = ["", ""] + block(support["after"]) if support["after"] else []
    return "\n".join(lines[: start - 1] + before + lines[start - 1 : end] + after + lines[end:]) + "\n"
`;

const SUPPORT_SCRIPT = `${SUPPORT_PY}
req = json.loads(sys.stdin.read())
print(json.dumps(read_support(req["support"], req["symbol"])))
`;

export type SupportCode = { ok: true; names: string[]; before: string[]; after: string[] } | { ok: false; problems: string[] };

/** Reads support code for the node whose symbol is `symbol`: what it binds, and what goes before and after the symbol. */
export async function readSupportCode(python: string, support: string, symbol: string): Promise<SupportCode> {
  if (support.trim() === "") return { ok: true, names: [], before: [], after: [] };
  return JSON.parse(await runPythonScript(python, SUPPORT_SCRIPT, JSON.stringify({ support, symbol }))) as SupportCode;
}
