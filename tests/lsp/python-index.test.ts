import { describe, expect, it } from "vitest";
import { PythonIndex, type PythonFile, type TextEdit } from "../../src/lsp/python-index.js";

// The parser's side: the edits, the references it falls back to, and the rename's collision check. No server here.
const index = new PythonIndex("python3");

function edited(result: TextEdit): string {
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result.text;
}

const file = (path: string, text: string): PythonFile => ({
  path,
  module: path
    .replace(/^src\//, "")
    .replace(/(\/__init__)?\.py$/, "")
    .replace(/\//g, "."),
  package: path.endsWith("__init__.py"),
  text,
});

describe("replacing a body", () => {
  it("keeps CRLF line ends, and a body that shared the header's line gets lines of its own", async () => {
    const text = 'def f(x):\r\n    """Doc."""\r\n    return x\r\n\r\n\r\ndef g(y): return f(y)\r\n';
    expect(edited(await index.replaceBody(text, "f", undefined, "y = x * 2\nreturn y\n"))).toBe(
      'def f(x):\r\n    """Doc."""\r\n    y = x * 2\r\n    return y\r\n\r\n\r\ndef g(y): return f(y)\r\n',
    );
    expect(edited(await index.replaceBody(text, "g", undefined, "return f(y) + 1"))).toBe(
      'def f(x):\r\n    """Doc."""\r\n    return x\r\n\r\n\r\ndef g(y):\r\n    return f(y) + 1\r\n',
    );
  });

  it("takes a whole definition of the symbol as its new body, keeping the file's signature and docstring", async () => {
    const text = 'class A:\n    def m(self, a: int) -> int:\n        """Doc."""\n        return a\n';
    const code = '    def m(self, a):\n        """Another doc."""\n        b = a + 1\n        return b\n';
    expect(edited(await index.replaceBody(text, "A.m", undefined, code))).toBe(
      'class A:\n    def m(self, a: int) -> int:\n        """Doc."""\n        b = a + 1\n        return b\n',
    );
  });

  it("drops a docstring leading the new body when the symbol has one, and fills a docstring-only body", async () => {
    const text = 'def f():\n    """Doc."""\n\n\nx = 1\n';
    expect(edited(await index.replaceBody(text, "f", undefined, '"""Doc again."""\nreturn 1'))).toBe(
      'def f():\n    """Doc."""\n    return 1\n\n\nx = 1\n',
    );
    expect(await index.replaceBody(text, "f", undefined, '"""Only a docstring."""')).toMatchObject({ ok: false, code: "LSP_EDIT_EMPTY" });
  });

  it("leaves the lines inside a multi-line string as written when it re-indents", async () => {
    const text = "class A:\n    def m(self):\n        return 1\n";
    const code = 'text = """first\n  second\n"""\nreturn text';
    expect(edited(await index.replaceBody(text, "A.m", undefined, code))).toBe(
      'class A:\n    def m(self):\n        text = """first\n  second\n"""\n        return text\n',
    );
  });

  it("refuses, with the line, a body that does not parse, a file that does not, and a name defined twice", async () => {
    expect(await index.replaceBody("def f():\n    return 1\n", "f", undefined, "if x\n    return 2")).toMatchObject({
      ok: false,
      code: "LSP_EDIT_DOES_NOT_PARSE",
      line: 2,
    });
    expect(await index.replaceBody("def f(:\n    return 1\n", "f", undefined, "return 2")).toMatchObject({
      ok: false,
      code: "LSP_FILE_DOES_NOT_PARSE",
    });
    const twice = "import sys\nif sys.platform == 'win32':\n    def f():\n        return 1\nelse:\n    def f():\n        return 2\n";
    expect(await index.replaceBody(twice, "f", undefined, "return 3")).toMatchObject({ ok: false, code: "LSP_SYMBOL_AMBIGUOUS" });
    expect(edited(await index.replaceBody(twice, "f", 6, "return 3"))).toBe(twice.replace("return 2", "return 3"));
  });
});

describe("inserting", () => {
  it("puts a function two blank lines from its neighbours at module level, above the comments on top of one", async () => {
    const text = "import os\n# the entry point\ndef main():\n    pass\n";
    expect(edited(await index.insert(text, "main", undefined, "def helper():\n    return os.sep", "before"))).toBe(
      "import os\n\n\ndef helper():\n    return os.sep\n\n\n# the entry point\ndef main():\n    pass\n",
    );
    expect(edited(await index.insert("def main():\n    pass", "main", undefined, "def after():\n    pass\n", "after"))).toBe(
      "def main():\n    pass\n\n\ndef after():\n    pass\n",
    );
  });

  it("puts a method first in its class without a blank line under the class header", async () => {
    const text = "class A:\n    def m(self):\n        return 1\n";
    expect(edited(await index.insert(text, "A.m", undefined, "def first(self):\n    return 0", "before"))).toBe(
      "class A:\n    def first(self):\n        return 0\n\n    def m(self):\n        return 1\n",
    );
  });
});

describe("the parser's references", () => {
  const files = [
    file("src/pkg/__init__.py", 'from .core import run\n__all__ = ["run"]\n'),
    file("src/pkg/core.py", "def run(x):\n    return x\n\n\ndef again(run):\n    return run\n"),
    file(
      "src/pkg/use.py",
      "from pkg import run\nimport pkg.core\nfrom .core import run as go\n\n\ndef use():\n    return run(1) + pkg.core.run(2) + go(3)\n",
    ),
    file("src/pkg/other.py", "def run():\n    return 0\n\n\ndef call():\n    return run()\n"),
  ];

  it("follow imports (relative, through a package's re-export, dotted, aliased) and Python's scopes", async () => {
    const [answer] = await index.references(files, [{ path: "src/pkg/core.py", qualname: "run" }]);
    if (!answer?.ok) throw new Error("no answer");
    expect(answer.exact).toBe(true);
    expect(answer.sites.map((s) => `${s.path}:${s.line}:${s.column} ${s.role}`)).toEqual([
      "src/pkg/__init__.py:1:18 import",
      "src/pkg/__init__.py:2:12 string",
      "src/pkg/core.py:1:4 definition",
      // core.py:5-6: `again`'s parameter named run is another binding; other.py's run is another function.
      "src/pkg/use.py:1:16 import",
      "src/pkg/use.py:3:18 import",
      "src/pkg/use.py:7:11 reference",
      "src/pkg/use.py:7:29 attribute",
      "src/pkg/use.py:7:38 alias",
    ]);
  });

  it("list every attribute of a member's name, and say they are by name only", async () => {
    const own = [file("m.py", "class A:\n    def go(self):\n        return self.go\n\n\ndef f(a):\n    return a.go()\n")];
    const [answer] = await index.references(own, [{ path: "m.py", qualname: "A.go" }]);
    expect(answer).toMatchObject({ ok: true, exact: false });
    if (answer?.ok)
      expect(answer.sites.map((s) => `${s.line}:${s.column} ${s.role}`)).toEqual(["2:8 definition", "3:20 attribute", "7:13 attribute"]);
  });
});

describe("the rename's collision check", () => {
  const files = [
    file("m.py", "import os\n\n\ndef f(v):\n    total = 1\n    return v + total\n\n\ndef g():\n    return f(2) + len([])\n"),
    file("n.py", "from m import f\n\n\ndef h(len):\n    return f(len)\n"),
  ];
  const sites = [
    { path: "m.py", line: 4, column: 4 },
    { path: "m.py", line: 10, column: 11 },
    { path: "n.py", line: 1, column: 14 },
    { path: "n.py", line: 5, column: 11 },
  ];

  it("lets a name that is only bound in another scope through", async () => {
    expect(await index.renameCheck(files, sites, "total")).toMatchObject({ ok: true, conflicts: [], errors: [] });
  });

  it("refuses a name bound in the same scope, one bound where the symbol is used, and a builtin it would shadow", async () => {
    expect((await index.renameCheck(files, sites, "g")).conflicts[0]).toEqual({
      path: "m.py",
      line: 9,
      message: "g is already defined in the same scope (line 9)",
    });
    expect((await index.renameCheck(files, sites, "os")).code).toBe("LSP_RENAME_COLLISION");
    expect((await index.renameCheck(files, sites, "len")).conflicts).toEqual([
      { path: "m.py", line: 10, message: "len is used on line 10, where it would come to mean the renamed symbol" },
      { path: "n.py", line: 4, message: "len is already bound (line 4) where the symbol is used on line 5" },
    ]);
  });

  it("refuses a keyword, and an edit that would not parse", async () => {
    expect(await index.renameCheck(files, sites, "class")).toMatchObject({ ok: false, code: "LSP_RENAME_INVALID_NAME" });
    const broken = files.map((f) => ({ ...f, new_text: f.text.replace("def f(v):", "def f(v)") }));
    expect(await index.renameCheck(broken, sites, "fine")).toMatchObject({
      ok: false,
      code: "LSP_EDIT_DOES_NOT_PARSE",
      errors: [{ path: "m.py", line: 4 }],
    });
  });
});
