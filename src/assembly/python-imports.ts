import { JS_TEXT_PY } from "../python-helpers/js-text.js";
import { runPythonScript } from "../python-helpers/run-script.js";
import { OUTLINE_PY } from "../workspace/python-outline.js";

/**
 * The Python half of imports.ts: one script, run as `python3 -I -c` with a JSON request
 * on stdin. It only calls ast.parse and tokenize, which never execute the code, so it
 * is safe on generated (untrusted) modules; -I keeps a module in the working directory
 * from shadowing `ast` or `json`. The bytes go through stdin.buffer as UTF-8 and come
 * back as ASCII JSON, so the locale of the scrubbed environment does not matter.
 */
export const IMPORTS_PY = String.raw`
import ast, io, json, re, sys, tokenize

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
            "keys": keys, "binds": [bound_name(a) for a in node.names], "module": module, "level": level, "shared": False}

def bound_name(alias):
    # "import a.b" binds a; "from m import *" binds no one name, and is kept as "*".
    return alias.asname or (alias.name if "." not in alias.name else alias.name.split(".")[0])

class Scope:
    # One namespace: "module", "function" (lambdas and comprehensions too) or "class".
    def __init__(self, kind, parent):
        self.kind, self.parent = kind, parent
        self.bound, self.imported, self.declared_global, self.declared_nonlocal = set(), set(), set(), set()
        self.reads = []

    def function(self):
        # Where a walrus in a comprehension binds: the nearest scope that is no comprehension.
        scope = self
        while scope.kind == "comprehension":
            scope = scope.parent
        return scope

COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

def scope_parts(node):
    # For a node that opens a scope: its kind, the children evaluated outside it (decorators,
    # defaults, annotations, bases, a comprehension's first iterable), those inside, and its parameters.
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = node.args
        params = [x for x in a.posonlyargs + a.args + [a.vararg] + a.kwonlyargs + [a.kwarg] if x is not None]
        outside = a.defaults + [d for d in a.kw_defaults if d is not None]
        if isinstance(node, ast.Lambda):
            return "function", outside, [node.body], [x.arg for x in params]
        outside += node.decorator_list + [x.annotation for x in params if x.annotation] + ([node.returns] if node.returns else [])
        types = [t.name for t in getattr(node, "type_params", [])]
        return "function", outside, node.body, [x.arg for x in params] + types
    if isinstance(node, ast.ClassDef):
        return "class", node.decorator_list + node.bases + node.keywords, node.body, []
    if isinstance(node, COMPREHENSIONS):
        first, rest = node.generators[0], node.generators[1:]
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        inside = [first.target] + first.ifs + [x for g in rest for x in [g.target, g.iter] + g.ifs] + elements
        return "comprehension", [first.iter], inside, []
    return None

def scopes_of(tree):
    # Every scope of the module and what each binds and reads, by Python's rules: a name bound
    # anywhere in a function (parameter, assignment, import, def) is local to all of it.
    module = Scope("module", None)
    found = [module]
    stack = [(node, module) for node in tree.body]
    while stack:
        node, scope = stack.pop()
        parts = scope_parts(node)
        if parts:
            kind, outside, inside, params = parts
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                scope.bound.add(node.name)
            inner = Scope(kind, scope)
            inner.bound.update(params)
            found.append(inner)
            stack.extend((child, scope) for child in outside)
            stack.extend((child, inner) for child in inside)
            continue
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                scope.reads.append(node.id)
            else:
                scope.bound.add(node.id)
                if isinstance(node.ctx, ast.Del):
                    scope.reads.append(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [bound_name(a) for a in node.names if a.name != "*"]
            scope.bound.update(names)
            scope.imported.update(names)
        elif isinstance(node, ast.Global):
            scope.declared_global.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.declared_nonlocal.update(node.names)
        elif isinstance(node, ast.NamedExpr):
            scope.function().bound.add(node.target.id)
            stack.append((node.value, scope))
            continue
        elif isinstance(node, ast.ExceptHandler) and node.name:
            scope.bound.add(node.name)
        elif type(node).__name__ in ("MatchAs", "MatchStar") and node.name:
            scope.bound.add(node.name)
        elif type(node).__name__ == "MatchMapping" and node.rest:
            scope.bound.add(node.rest)
        stack.extend((child, scope) for child in ast.iter_child_nodes(node))
    return found

def is_module_name(name, scope):
    # Whether a name read in scope means the module's name of that name (or a builtin). A class
    # body's names are seen by reads in the body itself, not by its methods.
    first = True
    while scope.kind != "module":
        if name in scope.declared_global:
            return True
        if (first or scope.kind != "class") and name in scope.bound and name not in scope.declared_nonlocal:
            return False
        scope, first = scope.parent, False
    return True

def module_reads(scopes):
    # The names the code reads as module-level names, anywhere in it.
    return {name for scope in scopes for name in scope.reads if is_module_name(name, scope)}

def imported_inside(scopes):
    # Names imported inside a function or class body, for that body alone.
    return {name for scope in scopes if scope.kind != "module" for name in scope.imported if name not in scope.declared_global}

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
    scopes = scopes_of(ast.Module(body=body, type_ignores=[]))
    local_only = sorted(imported_inside(scopes) - module_reads(scopes))
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
            "localOnly": local_only, "extras": extras, "next": {"start": next_start, "kind": next_kind}}

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
        found = module_reads(scopes_of(ast.parse(req["code"])))
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

def defined_names(tree):
    # What a module defines itself at its top level: bound there, other than by an import.
    module = scopes_of(tree)[0]
    return module.bound - module.imported

def absolute_module(importer, is_package, level, module):
    # "." is the importer's package: the module itself when it is a package, else its parent; each further dot goes up one.
    if level == 0:
        return module
    parts = importer.split(".")
    anchor = parts if is_package else parts[:-1]
    if level - 1 >= len(anchor):
        return None
    return ".".join(anchor[:len(anchor) - (level - 1)] + (module.split(".") if module else []))

def own(req):
    # The import lines without the names they take from the importer's own module. A plain
    # module has no submodules, so all of them go; a package keeps those it does not define.
    importer, is_package = req["module"], req["isPackage"]
    defined = set(req["names"])
    try:
        defined |= defined_names(ast.parse(req["source"]))
    except SyntaxError:
        pass
    out = []
    for line in req["lines"]:
        try:
            statements = ast.parse(line.strip()).body
        except SyntaxError:
            out.append(line)
            continue
        kept, changed = [], False
        for s in statements:
            if isinstance(s, ast.ImportFrom) and absolute_module(importer, is_package, s.level, s.module or "") == importer:
                names = [a for a in s.names if is_package and a.name != "*" and a.name not in defined]
                if len(names) < len(s.names):
                    changed = True
                    if names:
                        listed = ", ".join(a.name + (" as " + a.asname if a.asname else "") for a in names)
                        kept.append("from %s%s import %s" % ("." * s.level, s.module or "", listed))
                    continue
            kept.append(ast.get_source_segment(line.strip(), s))
        out.extend(kept if changed else [line])
    return {"ok": True, "lines": out}

def graph(req):
    out, defined = {}, {}
    for name, source in req["modules"].items():
        try:
            tree = ast.parse(source)
        except SyntaxError:
            out[name] = None
            continue
        defined[name] = sorted(defined_names(tree))
        found = []
        for node in runtime_imports(tree.body):
            if isinstance(node, ast.Import):
                found.extend({"level": 0, "module": a.name, "names": None} for a in node.names)
            else:
                found.append({"level": node.level, "module": node.module or "", "names": [a.name for a in node.names]})
        out[name] = found
    return {"ok": True, "modules": out, "defined": defined}

def stdlib(req):
    found = getattr(sys, "stdlib_module_names", None)
    if found is None:
        # Before 3.10: list (never import) what the standard library directory holds.
        import pkgutil, sysconfig
        found = set(sys.builtin_module_names) | {m.name for m in pkgutil.iter_modules([sysconfig.get_paths()["stdlib"]])}
    return {"ok": True, "names": sorted(found)}

def organize(req):
    # The module with its leading import block in PEP 8 order and req["extra"] added (see organizeImports in
    # imports.ts), parsed; the source unchanged, with a reason when the block cannot be organized.
    source = req["source"]
    def unchanged(reason=None):
        return {"source": source, "changed": False, **({} if reason is None else {"reason": reason})}
    text = source.replace("\r\n", "\n")
    scan = block({"source": text, "extra": [line for line in map(js_trim, req["extra"]) if line != ""]})
    if not scan["ok"]:
        return unchanged("imports not organized: " + scan["message"])
    lines = [] if text == "" else (text[:-1] if text.endswith("\n") else text).split("\n")
    imports = scan["imports"]
    first_statement = imports[0]["start"] if imports else scan["next"]["start"] or len(lines) + 1
    head_end = scan["docstringEnd"] if scan["docstringEnd"] > 0 else header_end(lines, first_statement - 1)
    units = units_of(lines, head_end, imports)
    if isinstance(units, str):
        return unchanged("imports not organized: " + units)
    added = new_extras(scan["extras"], scan["present"], scan["localOnly"])
    if not units and not added:
        return unchanged()
    rendered = render_block(without_repeats(units) + added, req["localPackages"], set(stdlib(req)["names"]))
    head = lines[:head_end]
    while head and js_trim(head[-1]) == "":
        head.pop()
    tail = lines[imports[-1]["end"] if imports else head_end :]
    while tail and js_trim(tail[0]) == "":
        tail.pop(0)
    gap = ["", ""] if scan["next"]["kind"] == "def" else [""]
    result = "\n".join(head + ([""] if head else []) + rendered + (gap if tail else []) + tail) + "\n"
    if result == source:
        return unchanged()
    parsed = outline(universal(result))
    if not parsed["ok"]:
        return unchanged("imports not organized: the result would not parse (line %s: %s)" % (parsed["line"], parsed["message"]))
    return {"source": result, "changed": True}

HEADER = re.compile("#!|#" + JS_DOT + "*coding[:=]")

def header_end(lines, limit):
    # Without a docstring, how many lines stay above the imports: a shebang and coding cookie (they only work on
    # lines 1-2), and a leading comment block set off by a blank line, which is a file header rather than a note on
    # the first import.
    end = 0
    while end < min(2, limit, len(lines)) and HEADER.match(lines[end]):
        end += 1
    after = end
    while after < limit and lines[after].startswith("#"):
        after += 1
    return after if end < after < limit and js_trim(lines[after]) == "" else end

def units_of(lines, head_end, imports):
    # The block's statements with the comment lines above each; a description of the problem if a line is neither.
    units, line = [], head_end + 1
    for statement in imports:
        comments = []
        while line < statement["start"]:
            content = js_trim(lines[line - 1])
            if content.startswith("#"):
                comments.append(content)
            elif content != "":
                return "line %d sits in the import block but is neither an import nor a comment" % line
            line += 1
        text = statement["segment"] if statement["shared"] else "\n".join(lines[statement["start"] - 1 : statement["end"]])
        units.append({"statement": statement, "comments": comments, "text": text})
        line = max(line, statement["end"] + 1)
    return units

def without_repeats(units):
    # The block without a second copy of a statement; a copy with comments of its own is kept, so nothing a person wrote is lost.
    seen, kept = set(), []
    for unit in units:
        key = js_trim(JS_SPACES.sub(" ", unit["text"]))
        if key not in seen or unit["comments"]:
            kept.append(unit)
        seen.add(key)
    return kept

def new_extras(extras, present, local_only):
    # Extra statements that bind a name not yet imported the same way, other than names only the functions that
    # import them read.
    bound, local, added = set(present), set(local_only), []
    for statement in extras:
        if all(key in bound for key in statement["keys"]) or all(name in local for name in statement["binds"]):
            continue
        bound.update(statement["keys"])
        added.append({"statement": statement, "comments": [], "text": statement["segment"]})
    return added

def render_block(units, local_packages, stdlib_names):
    out = []
    for group in ("future", "stdlib", "third_party", "local"):
        members = [unit for unit in units if group_of(unit["statement"], local_packages, stdlib_names) == group]
        if not members:
            continue
        if out:
            out.append("")
        for unit in sorted(members, key=unit_order):
            out += unit["comments"] + [unit["text"]]
    return out

def group_of(statement, local_packages, stdlib_names):
    if statement["level"] > 0:
        return "local"
    # "import __future__" is an ordinary module; only "from __future__ import" is a future statement.
    if statement["keys"] and statement["keys"][0].startswith("from ") and statement["module"] == "__future__":
        return "future"
    top = statement["module"].split(".")[0]
    # The package's own name wins over a standard-library module of the same name.
    if top in local_packages:
        return "local"
    return "stdlib" if top in stdlib_names else "third_party"

def unit_order(unit):
    # Relative imports last; by module, case-insensitively; "import x" before "from x import y"; then the text.
    statement = unit["statement"]
    module = "." * statement["level"] + statement["module"]
    is_from = bool(statement["keys"]) and statement["keys"][0].startswith("from ")
    return tuple(map(js_order, ("1" if statement["level"] > 0 else "0", module.lower(), module, "1" if is_from else "0", unit["text"])))
`;

const IMPORTS_SCRIPT = `${JS_TEXT_PY}
${OUTLINE_PY}
${IMPORTS_PY}
request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
modes = {"block": block, "names": names, "graph": graph, "own": own, "stdlib": stdlib, "organize": organize}
print(json.dumps(modes[request["mode"]](request)))
`;

/** One top-level import statement as the script describes it (lines are 1-based, inclusive). */
export interface ImportStatement {
  start: number;
  end: number;
  /** The statement's own text, without a trailing comment. */
  segment: string;
  /** One key per imported name, e.g. "from 0 statkit.stats mean " or "import os ": equal keys bind the same name the same way. */
  keys: string[];
  /** The name each key binds in the importing module ("a" for `import a.b`, "*" for a star import). */
  binds: string[];
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
      /** Names imported inside a function or class body and never read as the module's names: that body's own. */
      localOnly: string[];
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
  /** null for a module that does not parse; `defined` holds what each module that parses binds at top level, imports aside. */
  graph: { ok: true; modules: Record<string, RuntimeImport[] | null>; defined: Record<string, string[]> };
  own: { ok: true; lines: string[] };
  stdlib: { ok: true; names: string[] };
  organize: { source: string; changed: boolean; reason?: string };
}

export type ScriptRequest =
  | { mode: "block"; source: string; extra: readonly string[] }
  | { mode: "names"; code: string }
  | { mode: "graph"; modules: Record<string, string> }
  | { mode: "own"; lines: readonly string[]; module: string; isPackage: boolean; source: string; names: readonly string[] }
  | { mode: "stdlib" }
  | { mode: "organize"; source: string; localPackages: readonly string[]; extra: readonly string[] };

/** Runs one request through the import script; throws when Python itself fails, since nothing can go on without it. */
export async function askImportScript<M extends ScriptRequest["mode"]>(
  python: string,
  request: Extract<ScriptRequest, { mode: M }>,
): Promise<ScriptReplies[M]> {
  return JSON.parse(await runPythonScript(python, IMPORTS_SCRIPT, JSON.stringify(request))) as ScriptReplies[M];
}
