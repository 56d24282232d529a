import { describe, expect, it } from "vitest";
import { importCycles, missingNames, organizeImports, usedNames, withoutSelfImports } from "../../src/assembly/imports.js";
import { findPython } from "../../src/sandbox/python.js";

// Issue 14: imports stay where the code put them.
const python = await findPython();
const LOCAL = ["statkit"];

/** A function that imports a sibling module's name inside its body, as code does to avoid an import cycle. */
const REPORT = `def report(values):
    # statkit.stats imports this module: importing here avoids the cycle.
    from statkit.stats import mean

    def line(v):
        return f"{mean(v)}"

    return [line(v) for v in values] + [mean(values)]
`;

describe("an import inside a function", () => {
  it("is not added at the top of the module, and the function stays byte for byte", async () => {
    const source = `"""Reports."""\n\nimport sys\nimport os\n\n\n${REPORT}`;
    const result = await organizeImports(python, source, LOCAL, ["from statkit.stats import mean"]);
    expect(result.reason).toBeUndefined();
    expect(result.source).toBe(`"""Reports."""\n\nimport os\nimport sys\n\n\n${REPORT}`);
    expect(result.source.split("\n").filter((line) => line.includes("import mean"))).toEqual(["    from statkit.stats import mean"]);
  });

  it("adds nothing to a module that has no import block", async () => {
    const source = `import os\n\n\n${REPORT}`;
    await expect(organizeImports(python, source, LOCAL, ["from statkit.stats import mean"])).resolves.toEqual({ source, changed: false });
    await expect(organizeImports(python, REPORT, LOCAL, ["from statkit.stats import mean as mean"])).resolves.toEqual({
      source: REPORT,
      changed: false,
    });
  });

  it("is added at the top when another function reads the name without importing it", async () => {
    const source = `${REPORT}\n\ndef total(values):\n    return mean(values) * len(values)\n`;
    const result = await organizeImports(python, source, LOCAL, ["from statkit.stats import mean"]);
    expect(result.source).toBe(`from statkit.stats import mean\n\n\n${source}`);
  });

  it("does not reach a method: a name the class body imports is no name of its methods", async () => {
    const source = `class Report:\n    from statkit.stats import mean\n\n    def total(self, values):\n        return mean(values)\n`;
    const result = await organizeImports(python, source, LOCAL, ["from statkit.stats import mean"]);
    expect(result.source).toBe(`from statkit.stats import mean\n\n\n${source}`);
  });

  it("is no use of a dependency, for the edge imports", async () => {
    await expect(usedNames(python, REPORT, ["mean", "line", "values"])).resolves.toEqual([]);
    const method = `class Report:\n    def total(self, values):\n        from statkit.stats import mean\n\n        return mean(values) + median(values)\n`;
    await expect(usedNames(python, method, ["mean", "median"])).resolves.toEqual(["median"]);
    // A name declared global is the module's, whatever the function binds.
    const global = `def reset():\n    global mean\n    from statkit.stats import mean\n\n    return mean\n`;
    await expect(usedNames(python, global, ["mean"])).resolves.toEqual(["mean"]);
  });

  it("still counts a name read in an annotation, a default or a decorator, which the enclosing scope evaluates", async () => {
    const code = `from __future__ import annotations\n\n\n@register\ndef f(values: Sample, key=default_key) -> Summary:\n    from statkit.stats import Sample\n\n    return Sample(values)\n`;
    await expect(usedNames(python, code, ["Sample", "Summary", "default_key", "register"])).resolves.toEqual([
      "Sample",
      "Summary",
      "default_key",
      "register",
    ]);
  });
});

describe("missingNames", () => {
  it("does not take a name a circular import could not give for a missing import", () => {
    const output = `E   ImportError: cannot import name 'mean' from partially initialized module 'statkit.stats' (most likely due to a circular import) (/tmp/pkg/src/statkit/stats.py)
E   ImportError: cannot import name 'median' from 'statkit.stats' (/tmp/pkg/src/statkit/stats.py)
`;
    expect(missingNames(output)).toEqual({ names: ["median"], modules: [] });
  });
});

describe("withoutSelfImports", () => {
  const init = `def helper():\n    return 1\n\n\nVERSION = "1"\n`;

  it("keeps a submodule the package's own __init__.py imports, and drops the names it defines", async () => {
    const lines = [
      "from statkit import stats",
      "from . import report as rep",
      "from statkit.stats import mean",
      "from statkit import helper",
      "from statkit import stats, VERSION  # both",
      "from . import helper, (", // does not parse: left for the review to refuse
      "import statkit",
    ];
    await expect(withoutSelfImports(python, lines, { module: "statkit", isPackage: true, source: init })).resolves.toEqual([
      "from statkit import stats",
      "from . import report as rep",
      "from statkit.stats import mean",
      "from statkit import stats",
      "from . import helper, (",
      "import statkit",
    ]);
  });

  it("drops every name a plain module imports from itself, and names the node is about to define", async () => {
    const lines = [
      "from statkit.stats import mean, median",
      "from .stats import mean",
      "from . import stats",
      "import os; from statkit.stats import mean",
    ];
    await expect(withoutSelfImports(python, lines, { module: "statkit.stats", isPackage: false, source: "" })).resolves.toEqual([
      "from . import stats",
      "import os",
    ]);
    await expect(
      withoutSelfImports(python, ["from statkit import mean, stats"], { module: "statkit", isPackage: true, source: "", names: ["mean"] }),
    ).resolves.toEqual(["from statkit import stats"]);
  });
});

describe("importCycles, for a package's __init__.py", () => {
  it("takes `from pkg import submodule` in pkg for the submodule, not for an import of pkg by itself", async () => {
    const modules = new Map([
      ["statkit", "from statkit import stats\nfrom . import report\n\ndef helper():\n    return stats\n"],
      ["statkit.io", "def read():\n    return 1\n"],
    ]);
    await expect(importCycles(python, modules)).resolves.toEqual([]);
    const self = new Map([["statkit", "def helper():\n    return 1\n\nfrom statkit import helper as h\n"]]);
    const cycles = await importCycles(python, self, new Set(["statkit"]));
    expect(cycles).toEqual([{ cycle: ["statkit", "statkit"], suggestion: expect.stringContaining("itself") }]);
  });

  it("resolves `from . import x` in a one-module package against the package itself", async () => {
    const modules = new Map([
      ["statkit.core", "from . import helpers\n"],
      ["statkit.helpers", "from statkit.core import run\n\ndef aid():\n    return 1\n"],
    ]);
    // statkit.core is a package (src/statkit/core/__init__.py): `.` is statkit.core, so there is no cycle.
    await expect(importCycles(python, modules, new Set(["statkit.core"]))).resolves.toEqual([]);
    // As a plain module, `.` is statkit, so statkit.core loads statkit.helpers, which loads statkit.core.
    await expect(importCycles(python, modules)).resolves.toHaveLength(1);
  });
});
