import { runPythonScript } from "../sandbox/python-script.js";

/**
 * The Python half of imports.ts: one script, run as `python3 -I -c` with a JSON request
 * on stdin. It only calls ast.parse and tokenize, which never execute the code, so it
 * is safe on generated (untrusted) modules; -I keeps a module in the working directory
 * from shadowing `ast` or `json`. The bytes go through stdin.buffer as UTF-8 and come
 * back as ASCII JSON, so the locale of the scrubbed environment does not matter.
 */
const IMPORTS_SCRIPT = String.raw`
import ast, io, json, sys, tokenize

def is_docstring(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)

def start_of(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])

def kind_of(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return "def"
    return "other"

def describe(node, source):
    if isinstance(node, ast.Import):
        keys = [" ".join(["import", a.name, a.asname or ""]) for a in node.names]
        module, level = node.names[0].name, 0
    else:
        keys = [" ".join(["from", str(node.level), node.module or "", a.name, a.asname or ""]) for a in node.names]
        module, level = node.module or "", node.level
    return {"start": node.lineno, "end": node.end_lineno, "segment": ast.get_source_segment(source, node),
            "keys": keys, "module": module, "level": level, "shared": False}

def block(req):
    source = req["source"]
    try:
        body = ast.parse(source).body
    except SyntaxError as e:
        return {"ok": False, "message": "line %s: %s" % (e.lineno, e.msg)}
    first = 1 if body and is_docstring(body[0]) else 0
    last = first
    while last < len(body) and isinstance(body[last], (ast.Import, ast.ImportFrom)):
        last += 1
    after = body[last] if last < len(body) else None
    next_start, next_kind = (start_of(after), kind_of(after)) if after else (0, "none")
    # An import on the same line as the next statement cannot move by whole lines: it stays.
    while last > first and next_start and body[last - 1].end_lineno >= next_start:
        last -= 1
        next_start, next_kind = body[last].lineno, "other"
    if last > first and first and body[first].lineno <= body[0].end_lineno:
        return {"ok": False, "message": "an import shares a line with the module docstring"}
    imports = []
    for i in range(first, last):
        d = describe(body[i], source)
        d["shared"] = (i > 0 and body[i - 1].end_lineno >= body[i].lineno) or (i + 1 < len(body) and start_of(body[i + 1]) <= body[i].end_lineno)
        imports.append(d)
    present = [k for n in body if isinstance(n, (ast.Import, ast.ImportFrom)) for k in describe(n, source)["keys"]]
    extras = []
    for line in req["extra"]:
        try:
            statements = ast.parse(line).body
        except SyntaxError as e:
            return {"ok": False, "message": "extra import %r does not parse: %s" % (line, e.msg)}
        if not all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in statements):
            return {"ok": False, "message": "extra line %r is not an import statement" % line}
        extras.extend(describe(s, line) for s in statements)
    return {"ok": True, "docstringEnd": body[0].end_lineno if first else 0, "imports": imports, "present": present,
            "extras": extras, "next": {"start": next_start, "kind": next_kind}}

def names_by_tokens(code):
    # Partial code that ast rejects still tokenizes up to the error; a NAME after "." is an attribute.
    found, after_dot = set(), False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.NAME and not after_dot:
                found.add(tok.string)
            after_dot = tok.type == tokenize.OP and tok.string == "."
    except (tokenize.TokenError, SyntaxError):
        pass
    return found

def names(req):
    try:
        tree = ast.parse(req["code"])
        found = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    except SyntaxError:
        found = names_by_tokens(req["code"])
    return {"ok": True, "names": sorted(found)}

def is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")

def runtime_imports(body):
    # What runs when the module is imported: top level, and inside top-level if/try/with,
    # but not under "if TYPE_CHECKING:" and not inside functions or classes.
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not is_type_checking(node.test):
                yield from runtime_imports(node.body)
            yield from runtime_imports(node.orelse)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            yield from runtime_imports(node.body + [s for h in node.handlers for s in h.body] + node.orelse + node.finalbody)
        elif isinstance(node, ast.With):
            yield from runtime_imports(node.body)

def graph(req):
    out = {}
    for name, source in req["modules"].items():
        try:
            tree = ast.parse(source)
        except SyntaxError:
            out[name] = None
            continue
        found = []
        for node in runtime_imports(tree.body):
            if isinstance(node, ast.Import):
                found.extend({"level": 0, "module": a.name, "names": None} for a in node.names)
            else:
                found.append({"level": node.level, "module": node.module or "", "names": [a.name for a in node.names]})
        out[name] = found
    return {"ok": True, "modules": out}

def stdlib(req):
    found = getattr(sys, "stdlib_module_names", None)
    if found is None:
        # Before 3.10: list (never import) what the standard library directory holds.
        import pkgutil, sysconfig
        found = set(sys.builtin_module_names) | {m.name for m in pkgutil.iter_modules([sysconfig.get_paths()["stdlib"]])}
    return {"ok": True, "names": sorted(found)}

request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
print(json.dumps({"block": block, "names": names, "graph": graph, "stdlib": stdlib}[request["mode"]](request)))
`;

/** One top-level import statement as the script describes it (lines are 1-based, inclusive). */
export interface ImportStatement {
  start: number;
  end: number;
  /** The statement's own text, without a trailing comment. */
  segment: string;
  /** One key per imported name, e.g. "from 0 statkit.stats mean " or "import os ": equal keys bind the same name the same way. */
  keys: string[];
  /** The module of `from m import x`, or the first module of `import a, b`. */
  module: string;
  /** Dots of a relative import; 0 when absolute. */
  level: number;
  /** Another statement shares one of its lines (`import os; import sys`), so its lines cannot move whole. */
  shared: boolean;
}

/** The leading import block of a module, as `block` reports it. */
export type BlockScan =
  | {
      ok: true;
      /** Last line of the module docstring; 0 when there is none. */
      docstringEnd: number;
      /** The imports of the leading block, in file order. */
      imports: ImportStatement[];
      /** Keys of every top-level import, inside the block or not. */
      present: string[];
      /** The extra lines, parsed. */
      extras: ImportStatement[];
      /** The first statement after the block (start 0 when none); "def" for def and class. */
      next: { start: number; kind: "def" | "other" | "none" };
    }
  | { ok: false; message: string };

/** One import that runs when a module is loaded: `import m` (names null) or `from m import names`. */
export interface RuntimeImport {
  level: number;
  module: string;
  names: string[] | null;
}

export interface ScriptReplies {
  block: BlockScan;
  names: { ok: true; names: string[] };
  /** null for a module that does not parse. */
  graph: { ok: true; modules: Record<string, RuntimeImport[] | null> };
  stdlib: { ok: true; names: string[] };
}

export type ScriptRequest =
  | { mode: "block"; source: string; extra: readonly string[] }
  | { mode: "names"; code: string }
  | { mode: "graph"; modules: Record<string, string> }
  | { mode: "stdlib" };

/** Runs one request through the import script; throws when Python itself fails, since nothing can go on without it. */
export async function askImportScript<M extends ScriptRequest["mode"]>(
  python: string,
  request: Extract<ScriptRequest, { mode: M }>,
): Promise<ScriptReplies[M]> {
  return JSON.parse(await runPythonScript(python, IMPORTS_SCRIPT, JSON.stringify(request))) as ScriptReplies[M];
}
