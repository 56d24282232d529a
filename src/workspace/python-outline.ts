import { runPythonScript } from "../python-helpers/run-script.js";

/**
 * Python's own parser, run as `python3 -I` on source text passed through stdin. It
 * only parses (ast.parse never executes the code), so it is safe on untrusted code
 * and needs no sandbox. We use it instead of regular expressions because decorators,
 * multi-line strings and nested definitions defeat any regex. `outline(src)` is a function of
 * its own, so that a script which parses several texts in one call (the code application's)
 * runs this very code.
 */
export const OUTLINE_PY = String.raw`
import ast, json, sys


def outline(src):
    """The top-level statements of src, or where it fails to parse."""
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        return {"ok": False, "line": e.lineno or 0, "column": e.offset or 0, "message": e.msg}
    out = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        kind = {"FunctionDef": "def", "AsyncFunctionDef": "def", "ClassDef": "class", "Import": "import", "ImportFrom": "import"}.get(type(node).__name__, "other")
        if kind == "other" and isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant) and isinstance(node.value.value, str):
            kind = "docstring"
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            kind = "future"
        name = getattr(node, "name", None)
        # An assignment to one plain name (a constant, a table, a type alias), annotated or not.
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            kind, name = "assign", targets[0].id
        entry = {"kind": kind, "name": name, "start": start, "end": node.end_lineno}
        if targets:
            # Every name the statement binds (a, b = ...; c = d = ...): what another node must not bind again.
            entry["names"] = [t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)]
        if kind == "class":
            # Its methods, where method nodes are filled in, and the indentation of its body.
            entry["members"] = [{"name": m.name, "start": min([m.lineno] + [d.lineno for d in m.decorator_list]), "end": m.end_lineno}
                                for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
            entry["indent"] = node.body[0].col_offset
        out.append(entry)
    return {"ok": True, "statements": out}


def universal(text):
    # What outline() sees when the source comes on a text-mode stdin, as OUTLINE_SCRIPT reads it: universal newlines.
    return text.replace("\r\n", "\n").replace("\r", "\n")
`;

const OUTLINE_SCRIPT = `${OUTLINE_PY}
print(json.dumps(outline(sys.stdin.read())))
`;

export interface TopLevelStatement {
  kind: "def" | "class" | "assign" | "import" | "future" | "docstring" | "other";
  /** The name of a def or class, or the one name an assignment binds. */
  name: string | null;
  /** First line, including decorators (1-based). */
  start: number;
  /** Last line (1-based, inclusive). */
  end: number;
  /** Every name an assignment binds, tuple and chained targets included. */
  names?: string[];
  /** A class's methods (decorators included), for method nodes. */
  members?: { name: string; start: number; end: number }[];
  /** A class body's indentation, in columns. */
  indent?: number;
}

export type Outline = { ok: true; statements: TopLevelStatement[] } | { ok: false; line: number; column: number; message: string };

/** The top-level statements of Python source, or where it fails to parse. */
export async function outlinePython(python: string, source: string): Promise<Outline> {
  return JSON.parse(await runPythonScript(python, OUTLINE_SCRIPT, source)) as Outline;
}
