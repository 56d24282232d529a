import { runPythonScript } from "../python-helpers/run-script.js";

/**
 * Cuts whole top-level definitions out of a module, as `python3 -I -c` with a JSON request
 * on stdin. It only calls ast.parse, which never executes the code. Work is done on the
 * source's own lines, so everything the cut does not touch keeps its bytes; only an import
 * that loses some of its names is written anew. The bytes go through stdin.buffer as UTF-8
 * and come back as ASCII JSON, so the locale of the scrubbed environment does not matter.
 */
const SUBSET_SCRIPT = String.raw`
import ast, json, re, sys

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
IMPORTS = (ast.Import, ast.ImportFrom)
# A shebang or an encoding cookie only works on lines 1-2: it never belongs to a definition below.
COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")

def start_of(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])

def annotation_names(expr, into):
    # "Frame" as an annotation names Frame: parse the string instead of ignoring it.
    for n in ast.walk(expr):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            try:
                into.update(m.id for m in ast.walk(ast.parse(n.value, mode="eval")) if isinstance(m, ast.Name))
            except SyntaxError:
                pass

def names_in(node, into):
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            into.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            into.update(n.names)
        if isinstance(n, ast.arg) and n.annotation is not None:
            annotation_names(n.annotation, into)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
            annotation_names(n.returns, into)
        elif isinstance(n, ast.AnnAssign):
            annotation_names(n.annotation, into)

def dunder_all_names(node, into):
    if any(isinstance(n, ast.Name) and n.id == "__all__" for n in ast.walk(node)):
        into.update(n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str))

def bound_name(node, alias):
    if isinstance(node, ast.Import):
        return alias.asname or alias.name.split(".")[0]
    return None if alias.name == "*" else (alias.asname or alias.name)

def line_bytes(line):
    return line.encode("utf-8", "surrogatepass")

def newline_of(line):
    return line[len(line.rstrip("\r\n")):]

def rewritten(node, kept, multiline, newline):
    names = [a.name + (" as " + a.asname if a.asname else "") for a in kept]
    if isinstance(node, ast.Import):
        return "import " + ", ".join(names)
    head = "from " + "." * node.level + (node.module or "") + " import "
    if multiline and len(names) > 1:
        return head + "(" + newline + "".join("    " + n + "," + newline for n in names) + ")"
    return head + ", ".join(names)

def bound(node):
    """The names a top-level definition or assignment binds (a, b = ...; c = d = ...), else an empty set."""
    if isinstance(node, DEFS):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    names = {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    # Only plain names: an assignment to an attribute or item is not a definition of anyone's.
    return names if targets and all(isinstance(t, ast.Name) or isinstance(t, (ast.Tuple, ast.List)) for t in targets) else set()


def members_of(klass):
    """Each def in a class body, with the last line of the statement before it."""
    out = []
    for k, m in enumerate(klass.body):
        if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
            prev = klass.body[k - 1].end_lineno if k > 0 else start_of(m) - 1
            out.append((m, prev))
    return out


def subset(req):
    source, remove = req["source"], set(req["remove"])
    try:
        body = ast.parse(source).body
    except SyntaxError as e:
        return {"ok": False, "line": e.lineno or 0, "message": e.msg}
    targets = [i for i, n in enumerate(body) if bound(n) and bound(n) <= remove]
    # A registration call (register(_rule)) of a removed name goes with it: it would fail at import without it.
    gone = set().union(*(bound(body[i]) for i in targets))
    for i, n in enumerate(body):
        refs = set()
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and i not in targets:
            names_in(n, refs)
            if refs & gone:
                targets.append(i)
    targets.sort()
    # "Class.method": a method node's def inside its class, which stays.
    methods = [(m, lines_before) for n in body if isinstance(n, ast.ClassDef)
               for m, lines_before in members_of(n) if n.name + "." + m.name in remove]
    if not targets and not methods:
        return {"ok": True, "changed": False}
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", source)
    assert "".join(lines) == source
    covered = set()
    for n in body:
        covered.update(range(start_of(n), n.end_lineno + 1))

    def comments_above(i, start):
        # Contiguous column-0 comment lines right above a statement, after the one before it.
        prev_end = body[i - 1].end_lineno if i > 0 else 0
        while start - 1 > prev_end and lines[start - 2].startswith("#"):
            if start - 1 <= 2 and (lines[start - 2].startswith("#!") or COOKIE.match(lines[start - 2])):
                break
            start -= 1
        return start

    removed = set()
    removed_refs, kept_refs = set(), set()
    for m, previous_end in methods:
        names_in(m, removed_refs)
        # The method with the blank lines that set it apart from the member before it.
        removed.update(range(previous_end + 1, m.end_lineno + 1))
    for i in targets:
        node = body[i]
        names_in(node, removed_refs)
        start, end = comments_above(i, start_of(node)), node.end_lineno
        # Indented comments after the last statement of the body are still the body's.
        next_start = start_of(body[i + 1]) if i + 1 < len(body) else len(lines) + 1
        for j in range(end + 1, next_start):
            text = lines[j - 1]
            if re.match(r"[ \t]+#", text):
                end = j
            elif text.strip() != "":
                break
        removed.update(range(start, end + 1))
    for i, node in enumerate(body):
        if i not in targets:
            names_in(node, kept_refs)
            dunder_all_names(node, kept_refs)

    replaced = {}
    for i, node in enumerate(body):
        if not isinstance(node, IMPORTS) or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            continue
        def dropped(alias):
            name = bound_name(node, alias)
            return name is not None and name in removed_refs and name not in kept_refs
        kept = [a for a in node.names if not dropped(a)]
        if len(kept) == len(node.names):
            continue
        first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]
        prefix = line_bytes(first)[: node.col_offset].decode("utf-8", "surrogatepass")
        rest = line_bytes(last)[node.end_col_offset :].decode("utf-8", "surrogatepass")
        # Sharing a line with another statement (import os; import sys), it cannot go by whole lines: it stays.
        if prefix.strip() != "" or rest.strip().startswith(";"):
            continue
        if not kept:
            removed.update(range(comments_above(i, node.lineno), node.end_lineno + 1))
        else:
            multiline = node.end_lineno > node.lineno
            replaced[node.lineno] = (node.end_lineno, prefix + rewritten(node, kept, multiline, newline_of(last) or "\n") + rest)

    # Each line is kept text, removed, or a blank line between top-level statements (a gap).
    entries = []
    number = 1
    while number <= len(lines):
        if number in replaced:
            end, text = replaced[number]
            entries.append(("keep", text))
            number = end + 1
            continue
        text = lines[number - 1]
        if number in removed:
            entries.append(("removed", text))
        elif number not in covered and text.strip() == "":
            entries.append(("gap", text))
        else:
            entries.append(("keep", text))
        number += 1

    # A run of gaps and removed lines between kept text closes up to the wider of the gaps on either
    # side of what went, at most two blank lines (PEP 8); at the start or end of the file, to nothing.
    out = []
    i = 0
    while i < len(entries):
        if entries[i][0] == "keep":
            out.append(entries[i][1])
            i += 1
            continue
        j = i
        while j < len(entries) and entries[j][0] != "keep":
            j += 1
        run = entries[i:j]
        kinds = [k for k, _ in run]
        if "removed" not in kinds:
            out.extend(t for _, t in run)
        elif i > 0 and j < len(entries):
            first_cut = kinds.index("removed")
            last_cut = len(kinds) - 1 - kinds[::-1].index("removed")
            before, after = [t for _, t in run[:first_cut]], [t for _, t in run[last_cut + 1 :]]
            out.extend((before if len(before) >= len(after) else after)[:2])
        i = j
    result = "".join(out)
    if result and not result.endswith(("\n", "\r")):
        result += newline_of(lines[0]) or "\n"
    try:
        ast.parse(result)
    except SyntaxError as e:
        return {"ok": False, "line": e.lineno or 0, "message": "the module without them would not parse: " + e.msg}
    return {"ok": True, "changed": result != source, "source": result}

request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
print(json.dumps(subset(request)))
`;

type SubsetReply =
  { ok: true; changed: false } | { ok: true; changed: true; source: string } | { ok: false; line: number; message: string };

/**
 * The module without the top-level definitions and plain assignments named in `remove`, the
 * registration calls that use them, and the imports only they used. Byte for byte the same
 * when nothing is removed.
 */
export async function withoutSymbols(python: string, source: string, remove: readonly string[]): Promise<string> {
  if (remove.length === 0) return source;
  const reply = JSON.parse(await runPythonScript(python, SUBSET_SCRIPT, JSON.stringify({ source, remove }))) as SubsetReply;
  // The module is our own, parsed when it was written: failing to parse now is a bug in rpg-forge.
  if (!reply.ok) throw new Error(`withoutSymbols(${remove.join(", ")}) on a module that fails at line ${reply.line}: ${reply.message}`);
  return reply.changed ? reply.source : source;
}
