import { describe, expect, it } from "vitest";
import { importCycles, importFor, isStdlib, missingNames, organizeImports, usedNames } from "../../src/assembly/imports.js";
import { findPython } from "../../src/sandbox/python.js";

const python = await findPython();
const LOCAL = ["statkit"];

const MESSY = `"""Descriptive statistics."""
import requests
from statkit.validation import ensure_numbers
import os
# numpy is needed for the fast path
import numpy as np
from __future__ import annotations

from . import helpers
import collections.abc
from typing import Iterable  # noqa: F401
from statkit import config
import Math_Helpers
LIMIT = 3


@cache
def mean(values):
    return sum(values) / len(values)
`;

const ORGANIZED = `"""Descriptive statistics."""

from __future__ import annotations

import collections.abc
import os
from typing import Iterable  # noqa: F401

import Math_Helpers
# numpy is needed for the fast path
import numpy as np
import requests

from statkit import config
from statkit.validation import ensure_numbers
from . import helpers

LIMIT = 3


@cache
def mean(values):
    return sum(values) / len(values)
`;

describe("organizeImports", () => {
  it("groups a messy block in PEP 8 order, keeping the docstring first and a comment with its import", async () => {
    const result = await organizeImports(python, MESSY, LOCAL);
    expect(result).toEqual({ source: ORGANIZED, changed: true });
  });

  it("changes nothing the second time", async () => {
    const once = await organizeImports(python, MESSY, LOCAL, ["from statkit.stats import median"]);
    const twice = await organizeImports(python, once.source, LOCAL, ["from statkit.stats import median"]);
    expect(twice).toEqual({ source: once.source, changed: false });
  });

  it("puts two blank lines before the first definition", async () => {
    const source = `import sys\nimport os\ndef f():\n    return os.sep\n`;
    const result = await organizeImports(python, source, LOCAL);
    expect(result.source).toBe(`import os\nimport sys\n\n\ndef f():\n    return os.sep\n`);
  });

  it("leaves imports after the first statement and inside functions where they are", async () => {
    const source = `"""Doc."""

import sys
import os


def f():
    import json

    return json.dumps(os.sep)


import math
`;
    const result = await organizeImports(python, source, LOCAL);
    expect(result.source).toBe(source.replace("import sys\nimport os", "import os\nimport sys"));
  });

  it("adds extra lines once, after the module docstring, and not when the name is already imported", async () => {
    const source = `"""Doc."""\n\n\ndef variance(values):\n    return mean(values)\n`;
    const extra = ["from statkit.stats import mean", "from statkit.stats import mean", "import os"];
    const first = await organizeImports(python, source, LOCAL, extra);
    expect(first.source).toBe(
      `"""Doc."""\n\nimport os\n\nfrom statkit.stats import mean\n\n\ndef variance(values):\n    return mean(values)\n`,
    );
    const again = await organizeImports(python, first.source, LOCAL, extra);
    expect(again.changed).toBe(false);
    const merged = `from statkit.stats import mean, median\n\nX = 1\n`;
    expect(await organizeImports(python, merged, LOCAL, ["from statkit.stats import median"])).toEqual({ source: merged, changed: false });
  });

  it("returns the source unchanged, saying why, when it or an extra line does not parse", async () => {
    const broken = await organizeImports(python, "import os\ndef f(:\n", LOCAL, ["import sys"]);
    expect(broken).toMatchObject({ source: "import os\ndef f(:\n", changed: false, reason: expect.stringContaining("line 2") });
    const notImport = await organizeImports(python, "import os\n", LOCAL, ["x = 1"]);
    expect(notImport).toMatchObject({ source: "import os\n", changed: false, reason: expect.stringContaining("not an import") });
  });

  it("keeps a file header and a shebang above the imports", async () => {
    const source = `#!/usr/bin/env python\n# Copyright the authors.\n\nimport sys\nimport os\n`;
    const result = await organizeImports(python, source, LOCAL);
    expect(result.source).toBe(`#!/usr/bin/env python\n# Copyright the authors.\n\nimport os\nimport sys\n`);
  });
});

describe("importFor", () => {
  it("imports a dependency from its module, and not at all from the same module", () => {
    const mean = { name: "mean", file_path: "src/statkit/stats/descriptive.py" };
    expect(importFor(mean, { file_path: "src/statkit/report.py" })).toBe("from statkit.stats.descriptive import mean");
    expect(importFor(mean, { file_path: "src/statkit/stats/descriptive.py" })).toBeUndefined();
    expect(importFor({ name: "Config", file_path: "src/statkit/__init__.py" }, { file_path: "src/statkit/io.py" })).toBe(
      "from statkit import Config",
    );
  });
});

describe("usedNames", () => {
  it("counts identifiers, not words in strings, comments, attributes, parameters or keywords, nor names the function binds", async () => {
    const code = `def summary(obj, median=None):
    """Uses mean and total, in words only."""
    # ensure_numbers is not called here
    label = "variance"
    return obj.mean + obj.total(key=median) + helper(values=data) + len(label)
`;
    const candidates = ["mean", "total", "ensure_numbers", "variance", "median", "label", "helper", "data"];
    // median and label are the function's own (a parameter, an assignment): an import of a dependency by that name would go unused.
    await expect(usedNames(python, code, candidates)).resolves.toEqual(["helper", "data"]);
  });

  it("still finds names in code that does not parse", async () => {
    await expect(usedNames(python, "def f(:\n    return obj.mean + total", ["mean", "total"])).resolves.toEqual(["total"]);
  });
});

describe("importCycles", () => {
  it("finds a cycle between two modules and names what each imports", async () => {
    const modules = new Map([
      ["statkit", ""],
      ["statkit.stats", "from statkit.validation import ensure_numbers\n\ndef mean(v):\n    return ensure_numbers(v)\n"],
      ["statkit.validation", "from .stats import mean\n\ndef ensure_numbers(v):\n    return v\n"],
    ]);
    const cycles = await importCycles(python, modules);
    expect(cycles).toEqual([{ cycle: ["statkit.stats", "statkit.validation", "statkit.stats"], suggestion: expect.any(String) }]);
    expect(cycles[0]!.suggestion).toContain("statkit.stats imports statkit.validation (ensure_numbers)");
    expect(cycles[0]!.suggestion).toContain("statkit.validation imports statkit.stats (mean)");
  });

  it("ignores imports inside functions and under TYPE_CHECKING", async () => {
    const modules = new Map([
      ["statkit.stats", "from statkit.validation import ensure_numbers\n"],
      [
        "statkit.validation",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from statkit.stats import mean\n\ndef check(v):\n    from statkit.stats import mean\n    return mean(v)\n",
      ],
    ]);
    await expect(importCycles(python, modules)).resolves.toEqual([]);
  });
});

describe("missingNames", () => {
  it("reads names and modules from pytest's output", () => {
    const output = `==================================== ERRORS ====================================
__________________ ERROR collecting tests/test_descriptive.py __________________
ImportError while importing test module '/tmp/pkg/tests/test_descriptive.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
tests/test_descriptive.py:1: in <module>
    from statkit.stats import mean
E   ImportError: cannot import name 'mean' from 'statkit.stats' (/tmp/pkg/src/statkit/stats.py)
____________________ ERROR collecting tests/test_report.py _____________________
tests/test_report.py:1: in <module>
    from statkit.report import summary
src/statkit/report.py:1: in <module>
    import numpy as np
E   ModuleNotFoundError: No module named 'numpy'
=================================== FAILURES ===================================
________________________________ test_variance _________________________________

    def variance(values):
>       data = ensure_numbers(values)
               ^^^^^^^^^^^^^^
E       NameError: name 'ensure_numbers' is not defined

src/statkit/stats.py:2: NameError
________________________________ test_median ___________________________________
E       NameError: name 'sorted_copy' is not defined. Did you mean: 'sorted'?
=========================== short test summary info ============================
FAILED tests/test_variance.py::test_variance - NameError: name 'ensure_number...
FAILED tests/test_median.py::test_median - NameError: name 'sorted_copy' is not defined. Did you mean: 'sorted'?
ERROR tests/test_descriptive.py
ERROR tests/test_report.py
`;
    expect(missingNames(output)).toEqual({ names: ["ensure_numbers", "mean", "sorted_copy"], modules: ["numpy"] });
    expect(missingNames("1 passed in 0.01s")).toEqual({ names: [], modules: [] });
  });
});

describe("isStdlib", () => {
  it("tells standard-library modules from others by their top-level name", async () => {
    await expect(isStdlib(python, "collections.abc")).resolves.toBe(true);
    await expect(isStdlib(python, "numpy")).resolves.toBe(false);
    await expect(isStdlib(python, "statkit")).resolves.toBe(false);
  });
});
