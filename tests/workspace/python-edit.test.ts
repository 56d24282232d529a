import { describe, expect, it } from "vitest";
import { findPython } from "../../src/sandbox/python.js";
import { addImports, replaceSymbol, stubFor } from "../../src/workspace/python-edit.js";
import { outlinePython } from "../../src/workspace/python-outline.js";

const python = await findPython();

async function edit(source: string, name: string, code: string): Promise<string> {
  const outline = await outlinePython(python, source);
  if (!outline.ok) throw new Error(outline.message);
  return replaceSymbol(source, outline.statements, name, code);
}

const FILE = `"""Descriptive statistics."""
import math

from statkit.validation import ensure_numbers


@cache
def mean(values):
    return sum(values) / len(values)


class Box:
    """A box."""

    def area(self):
        return 0


def median(values):
    raise NotImplementedError
`;

describe("Python symbol edits", () => {
  it("outlines top-level statements with decorators included", async () => {
    const outline = await outlinePython(python, FILE);
    expect(outline.ok && outline.statements.map((s) => [s.kind, s.name, s.start, s.end])).toEqual([
      ["docstring", null, 1, 1],
      ["import", null, 2, 2],
      ["import", null, 4, 4],
      ["def", "mean", 7, 9],
      ["class", "Box", 12, 16],
      ["def", "median", 19, 20],
    ]);
  });

  it("reports where source fails to parse without running it", async () => {
    const outline = await outlinePython(python, "import os\nos.system('touch /tmp/pwned')\ndef f(:\n");
    expect(outline).toMatchObject({ ok: false, line: 3 });
  });

  it("replaces one symbol and keeps every other byte, decorators of the replaced symbol included", async () => {
    const result = await edit(FILE, "mean", "def mean(values):\n    return math.fsum(values) / len(values)\n");
    expect(result).toBe(
      FILE.replace(
        "@cache\ndef mean(values):\n    return sum(values) / len(values)",
        "def mean(values):\n    return math.fsum(values) / len(values)",
      ),
    );
  });

  it("replaces a class and the last symbol of a file", async () => {
    expect(await edit(FILE, "median", "def median(values):\n    return 2\n")).toBe(
      FILE.replace("    raise NotImplementedError\n", "    return 2\n"),
    );
    expect(await edit(FILE, "Box", "class Box:\n    pass\n")).toContain("class Box:\n    pass\n\n\ndef median");
  });

  it("appends a symbol that is not there yet", async () => {
    expect(await edit("import os\n", "f", "def f():\n    return 1")).toBe("import os\n\n\ndef f():\n    return 1\n");
    expect(await edit("", "f", "def f():\n    return 1")).toBe("def f():\n    return 1\n");
  });

  it("adds only missing imports, after the existing import block", async () => {
    const outline = await outlinePython(python, FILE);
    if (!outline.ok) throw new Error();
    const result = addImports(FILE, outline.statements, ["import math", "import statistics"]);
    expect(result.split("\n").slice(0, 6)).toEqual([
      '"""Descriptive statistics."""',
      "import math",
      "",
      "from statkit.validation import ensure_numbers",
      "import statistics",
      "",
    ]);
  });

  it("writes stubs that import cleanly and raise NotImplementedError", async () => {
    for (const [name, kind] of [
      ["mean", "function"],
      ["Box", "class"],
    ] as const) {
      const outline = await outlinePython(python, stubFor(name, kind));
      expect(outline.ok && outline.statements.map((s) => s.name)).toEqual([name]);
    }
  });
});
