import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PythonIndex } from "../../src/lsp/python-index.js";
import { describeSites } from "../../src/lsp/references.js";
import { Repository } from "../../src/lsp/repository.js";
import { inLocale } from "../helpers/collation.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

describe("the references the tools show", () => {
  it("come in the same order whatever the machine's locale: by path, line and column", async () => {
    const root = tempDir();
    mkdirSync(join(root, "src/pkg"), { recursive: true });
    for (const name of ["chart", "hist"]) writeFileSync(join(root, `src/pkg/${name}.py`), "from .core import mean\n\nVALUE = mean([1])\n");
    const repo = new Repository(root, new PythonIndex("python3"));
    const sites = [
      { file: "src/pkg/hist.py", line: 3, column: 8 },
      { file: "src/pkg/chart.py", line: 3, column: 8 },
      { file: "src/pkg/hist.py", line: 1, column: 18 },
    ];
    const order = (references: { file: string; line: number }[]) => references.map((r) => `${r.file}:${r.line}`);
    const expected = ["src/pkg/chart.py:3", "src/pkg/hist.py:1", "src/pkg/hist.py:3"];
    expect(order(await describeSites(repo, sites))).toEqual(expected);
    // Czech sorts "ch" after "h".
    expect(order(await inLocale("cs", () => describeSites(repo, sites)))).toEqual(expected);
  });
});
