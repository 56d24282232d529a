import { runPythonScript } from "../python-helpers/run-script.js";
import { EDIT_PY } from "./edit-script.js";
import { OUTLINE_PY } from "./outline-script.js";
import { REFERENCES_PY } from "./references-script.js";
import { RENAME_CHECK_PY } from "./rename-check-script.js";
import { SCOPES_PY } from "./scopes-script.js";

/*
 * Python's own parser, in rpg-forge's long-lived helper worker (decision 0013): it reads what the language server
 * does not give us byte for byte (bodies, docstrings, where a body starts), makes the edits, checks that they parse,
 * and stands in for the server when it fails. It only parses; nothing of the repository runs. One script, each
 * request one round trip (decision 0018); the texts travel inside JSON, so that \r\n reaches Python unchanged.
 */
const DRIVER = String.raw`
def main(request):
    op = request["op"]
    try:
        if op == "outline":
            return {f["path"]: outline_file(f["text"]) for f in request["files"]}
        if op == "references":
            return find_references_many(request["files"], request["targets"])
        if op == "replace_body":
            return replace_body(request["text"], request["qualname"], request.get("line"), request["code"])
        if op == "insert":
            return insert(request["text"], request["qualname"], request.get("line"), request["code"], request["where"])
        if op == "rename_check":
            return rename_check(request["files"], request["sites"], request["new_name"])
    except (SyntaxError, ValueError) as e:
        # The file as it is on disk (an edit's own result is checked where it is made).
        return {"ok": False, "code": "LSP_FILE_DOES_NOT_PARSE", "message": f"the file does not parse: {getattr(e, 'msg', str(e))}", "line": getattr(e, "lineno", None)}
    except RecursionError:
        return {"ok": False, "code": "LSP_EDIT_DOES_NOT_PARSE", "message": "the code nests too deeply for Python's parser", "line": None}
    raise ValueError(f"unknown op {op}")


print(json.dumps(main(json.loads(sys.stdin.read()))))
`;

const INDEX_SCRIPT = [OUTLINE_PY, SCOPES_PY, REFERENCES_PY, EDIT_PY, RENAME_CHECK_PY, DRIVER].join("\n");

/** A definition as the parser reads it. Lines are 1-based; `column` is the name's, 0-based, in UTF-16 code units. */
export interface OutlineSymbol {
  name: string;
  /** `Class.method` for a member, the name itself at module level. */
  qualname: string;
  kind: "function" | "class" | "method" | "variable";
  async: boolean;
  /** First line, decorators included. */
  start: number;
  /** The line of `def`/`class` (or of the assigned name). */
  line: number;
  column: number;
  end: number;
  /** The whitespace before `def`/`class`. */
  indent: string;
  /** The header as written, from `def`/`class` to its `:` (a variable: its statement's first line). */
  signature: string;
  docstring: string | null;
  /** The docstring's first and last line. */
  doc: [number, number] | null;
  /** The first and last line of the statements after the docstring. */
  body: [number, number] | null;
}

export type FileOutline =
  { ok: true; symbols: OutlineSymbol[]; imports: [number, number][] } | { ok: false; line: number; column: number; message: string };

export interface PythonFile {
  path: string;
  /** Its dotted module name (src/ layout understood), for imports. */
  module: string;
  /** An __init__.py: relative imports start from the module itself. */
  package: boolean;
  text: string;
}

/** Where a symbol is named, as the parser finds it. `column` 0-based, UTF-16. */
export interface ParserSite {
  path: string;
  line: number;
  column: number;
  /** alias: a name an import gave it (`as other`), which a rename leaves alone. */
  role: "definition" | "import" | "reference" | "attribute" | "string" | "alias";
}

export type ParserReferences = { ok: true; sites: ParserSite[]; exact: boolean; unparsed: string[] } | { ok: false; message: string };

export type TextEdit =
  | { ok: true; text: string; lines: [number, number] }
  | {
      ok: false;
      code: "LSP_SYMBOL_NOT_FOUND" | "LSP_SYMBOL_AMBIGUOUS" | "LSP_EDIT_EMPTY" | "LSP_EDIT_DOES_NOT_PARSE" | "LSP_FILE_DOES_NOT_PARSE";
      message: string;
      line: number | null;
    };

export interface RenameCheck {
  ok: boolean;
  code: "LSP_RENAME_INVALID_NAME" | "LSP_RENAME_COLLISION" | "LSP_EDIT_DOES_NOT_PARSE" | null;
  conflicts: { path: string; line: number; message: string }[];
  errors: { path: string; line: number; message: string }[];
}

/** Runs the parser's side of code intelligence with one interpreter. */
export class PythonIndex {
  constructor(private readonly python: string) {}

  private async call<T>(request: object): Promise<T> {
    return JSON.parse(await runPythonScript(this.python, INDEX_SCRIPT, JSON.stringify(request))) as T;
  }

  /** The definitions and imports of each file, or where it fails to parse. */
  outline(files: readonly { path: string; text: string }[]): Promise<Record<string, FileOutline>> {
    return this.call({ op: "outline", files });
  }

  /** For each target, every place its `qualname` of its `path` is named in `files` (its definition included). */
  references(files: readonly PythonFile[], targets: readonly { path: string; qualname: string }[]): Promise<ParserReferences[]> {
    return this.call({ op: "references", files, targets });
  }

  /** `text` with the body of `qualname` (the one defined on `line`, when given) replaced by `code`. */
  replaceBody(text: string, qualname: string, line: number | undefined, code: string): Promise<TextEdit> {
    return this.call({ op: "replace_body", text, qualname, line, code });
  }

  /** `text` with `code` put before or after `qualname`, at its indentation. */
  insert(text: string, qualname: string, line: number | undefined, code: string, where: "before" | "after"): Promise<TextEdit> {
    return this.call({ op: "insert", text, qualname, line, code, where });
  }

  /** Whether renaming the symbol at `sites` (1-based lines, UTF-16 columns) to `newName` is safe in `files`. */
  renameCheck(
    files: readonly (PythonFile & { new_text?: string })[],
    sites: readonly { path: string; line: number; column: number }[],
    newName: string,
  ): Promise<RenameCheck> {
    return this.call({ op: "rename_check", files, sites, new_name: newName });
  }
}
