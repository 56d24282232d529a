import { runPythonScript } from "../python-helpers/run-script.js";
import { OUTLINE_PY, type TopLevelStatement } from "../workspace/python-outline.js";

/**
 * The workspace's outline (python-outline.ts: every top-level statement with its lines, a class's
 * methods) with what a reader of interfaces needs added: each def's and class's header (names,
 * parameters, type hints, defaults, return type) as the file writes it, joined onto one line, or as
 * Python's own `ast.unparse` writes it where a comment sits inside; its decorators; and its docstring's
 * first line. Parsing only, never running, like every helper script.
 */
const SIGNATURES_SCRIPT = String.raw`${OUTLINE_PY}
import re


def first_line(doc):
    lines = [l.strip() for l in (doc or "").strip().splitlines() if l.strip()]
    return lines[0] if lines else None


def type_params(node):
    params = getattr(node, "type_params", None) or []
    return "[" + ", ".join(ast.unparse(p) for p in params) + "]" if params else ""


def written_header(lines, node):
    """The header as the file writes it, on one line; None where that is not plain (a comment inside it)."""
    first = node.body[0]
    if (first.lineno, first.col_offset) <= (node.lineno, node.col_offset):
        return None
    parts = []
    for i in range(node.lineno, first.lineno + 1):
        raw = lines[i - 1].encode("utf-8")
        lo = node.col_offset if i == node.lineno else 0
        hi = first.col_offset if i == first.lineno else len(raw)
        parts.append(raw[lo:hi].decode("utf-8", "replace"))
    text = "\n".join(parts).rstrip()
    if "#" in text or not text.endswith(":"):
        return None
    text = re.sub(r"\s*\n\s*", " ", text)
    return re.sub(r"([(\[]) ", r"\1", re.sub(r",? ([)\]])", r"\1", text))


def header(node, lines):
    written = written_header(lines, node)
    if written is not None:
        return written
    if isinstance(node, ast.ClassDef):
        bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
        return "class " + node.name + type_params(node) + ("(" + ", ".join(bases) + ")" if bases else "") + ":"
    text = ("async def " if isinstance(node, ast.AsyncFunctionDef) else "def ") + node.name + type_params(node)
    text += "(" + ast.unparse(node.args) + ")"
    if node.returns is not None:
        text += " -> " + ast.unparse(node.returns)
    return text + ":"


def described(node, lines):
    return {
        "header": header(node, lines),
        "decorators": ["@" + ast.unparse(d) for d in node.decorator_list],
        "doc": first_line(ast.get_docstring(node)),
    }


def signatures(src):
    result = outline(src)
    if not result["ok"]:
        return result
    tree = ast.parse(src)
    lines = src.split("\n")
    result["doc"] = first_line(ast.get_docstring(tree))
    # outline() makes one entry per top-level statement, in order: the two lists line up.
    for entry, node in zip(result["statements"], tree.body):
        if entry["kind"] in ("def", "class"):
            entry.update(described(node, lines))
        if entry["kind"] == "class":
            methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
            for member, method in zip(entry["members"], methods):
                member.update(described(method, lines))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            annotation = getattr(node, "annotation", None)
            entry["header"] = " = ".join(ast.unparse(t) for t in targets) + (": " + ast.unparse(annotation) if annotation is not None else "") + " = ..."
        elif entry["kind"] in ("import", "future"):
            entry["header"] = ast.unparse(node)
    return result


print(json.dumps(signatures(universal(sys.stdin.read()))))
`;

/** What a def or class looks like from outside. */
export interface Described {
  /** `def name(params) -> type:` or `class Name(bases):`, as ast.unparse writes it. */
  header?: string;
  decorators?: string[];
  /** The docstring's first line. */
  doc?: string | null;
}

export type SignatureStatement = Omit<TopLevelStatement, "members"> &
  Described & {
    members?: ({ name: string; start: number; end: number } & Described)[];
  };

export type SignatureOutline =
  { ok: true; doc: string | null; statements: SignatureStatement[] } | { ok: false; line: number; column: number; message: string };

/** The top-level statements of Python source with headers and docstring previews, or where it fails to parse. */
export async function outlineSignatures(python: string, source: string): Promise<SignatureOutline> {
  return JSON.parse(await runPythonScript(python, SIGNATURES_SCRIPT, source)) as SignatureOutline;
}
