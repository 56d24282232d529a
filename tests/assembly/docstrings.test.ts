import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { moduleDocstrings, packageDocstrings, pythonDocstring, withModuleDocstring } from "../../src/assembly/docstrings.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { findPython } from "../../src/sandbox/python.js";
import { composite, leaf, rpgDoc, text } from "../helpers/rpg.js";

/** What Python reads as the module's docstring, as written (not cleaned as help() shows it). */
async function docstringOf(source: string): Promise<string | null> {
  const script = "import ast, json, sys; print(json.dumps(ast.get_docstring(ast.parse(sys.stdin.buffer.read()), clean=False)))";
  const run = spawnSync(await findPython(), ["-I", "-c", script], { input: source, encoding: "utf8" });
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout) as string | null;
}

describe("pythonDocstring", () => {
  it("writes one line as one line, and several with the closing quotes on their own line", () => {
    expect(pythonDocstring("Area formulas.")).toBe('"""Area formulas."""');
    expect(pythonDocstring("Area formulas.\n\nFor circles.\n")).toBe('"""Area formulas.\n\nFor circles.\n"""');
  });

  it("keeps the text as data: quotes, backslashes and control characters cannot end the string", async () => {
    const hostile = 'Ends here"""; import os; os.system("x") #\\n\u0000 \u0007 back\\slash and "quoted" \r\nlast"';
    const docstring = pythonDocstring(hostile);
    // (a docstring of several lines ends with the newline before its closing quotes)
    expect(await docstringOf(`${docstring}\n`)).toBe(`${hostile.replace(/\r\n/g, "\n")}\n`);
  });
});

describe("withModuleDocstring", () => {
  const code = "import math\n\n\ndef area(r):\n    return math.pi * r**2\n";

  it("puts the docstring on top and keeps the code byte for byte", async () => {
    const out = withModuleDocstring(code, "Area formulas.", false);
    expect(out).toBe(`"""Area formulas."""\n\n${code}`);
    expect(await docstringOf(out)).toBe("Area formulas.");
  });

  it("keeps a shebang and an encoding line first", async () => {
    const source = `#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n${code}`;
    const out = withModuleDocstring(source, "Area.", false);
    expect(out).toBe(`#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n"""Area."""\n\n${code}`);
    expect(await docstringOf(out)).toBe("Area.");
  });

  it("leaves a module that has a docstring, and an empty plan docstring, alone", () => {
    expect(withModuleDocstring(`"""Mine."""\n${code}`, "Area.", true)).toBe(`"""Mine."""\n${code}`);
    expect(withModuleDocstring(code, "  \n", false)).toBe(code);
  });
});

describe("composite docstrings", () => {
  it("finds module docstrings by file and package docstrings by directory", () => {
    const loaded = parseRpgText(
      text(
        rpgDoc([
          composite({ id: "p", name: "pkg", type: "package", file: "src/pkg/__init__.py", docstring: "The package." }),
          composite({ id: "m", name: "core", parent_id: "p", docstring: "The core." }),
          composite({ id: "q", name: "sub", type: "package", file: "src/pkg/sub", parent_id: "p" }),
          leaf({ id: "a", parent_id: "m" }),
          leaf({ id: "b", file: "src/pkg/sub/x.py", parent_id: "q" }),
        ]),
      ),
      "rpg.json",
    );
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    expect([...moduleDocstrings(loaded.value)]).toEqual([["src/pkg/core.py", "The core."]]);
    expect([...packageDocstrings(loaded.value)]).toEqual([["src/pkg", "The package."]]);
  });
});
