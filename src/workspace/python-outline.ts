import { spawn } from "node:child_process";
import { RpgForgeError } from "../errors.js";

/**
 * Python's own parser, run as `python3 -I` on source text passed through stdin. It
 * only parses (ast.parse never executes the code), so it is safe on untrusted code
 * and needs no sandbox. We use it instead of regular expressions because decorators,
 * multi-line strings and nested definitions defeat any regex.
 */
const OUTLINE_SCRIPT = String.raw`
import ast, json, sys
src = sys.stdin.read()
try:
    tree = ast.parse(src)
except SyntaxError as e:
    print(json.dumps({"ok": False, "line": e.lineno or 0, "column": e.offset or 0, "message": e.msg}))
    sys.exit(0)
out = []
for node in tree.body:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    kind = {"FunctionDef": "def", "AsyncFunctionDef": "def", "ClassDef": "class", "Import": "import", "ImportFrom": "import"}.get(type(node).__name__, "other")
    if kind == "other" and isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant) and isinstance(node.value.value, str):
        kind = "docstring"
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        kind = "future"
    out.append({"kind": kind, "name": getattr(node, "name", None), "start": start, "end": node.end_lineno})
print(json.dumps({"ok": True, "statements": out}))
`;

export interface TopLevelStatement {
  kind: "def" | "class" | "import" | "future" | "docstring" | "other";
  /** The name of a def or class. */
  name: string | null;
  /** First line, including decorators (1-based). */
  start: number;
  /** Last line (1-based, inclusive). */
  end: number;
}

export type Outline = { ok: true; statements: TopLevelStatement[] } | { ok: false; line: number; column: number; message: string };

/** The top-level statements of Python source, or where it fails to parse. */
export async function outlinePython(python: string, source: string): Promise<Outline> {
  const child = spawn(python, ["-I", "-c", OUTLINE_SCRIPT], { stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  // A python that dies before reading all of stdin must surface as its exit code, not an EPIPE crash.
  child.stdin.on("error", () => undefined);
  child.stdin.end(source);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0) {
    throw new RpgForgeError(
      "SANDBOX_NO_PYTHON",
      `${python} could not parse source (exit ${code}): ${stderr.trim().split("\n").at(-1) ?? ""}`,
      {},
      "check that python3 runs: python3 -c 'import ast'",
    );
  }
  return JSON.parse(stdout) as Outline;
}
