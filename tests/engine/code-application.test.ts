import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { APPLICATION_PARTS } from "../../src/engine/application-script.js";
import { CodeApplication } from "../../src/engine/code-application.js";
import type { TddSetup } from "../../src/engine/tdd-setup.js";
import type { NodePromptContext } from "../../src/llm/requests/node-context.js";
import { runPythonScript } from "../../src/python-helpers/run-script.js";
import { helperTraffic } from "../../src/python-helpers/worker.js";
import type { RpgNode } from "../../src/rpg/schema.js";
import { findPython } from "../../src/sandbox/python.js";
import { stubFor } from "../../src/workspace/python-edit.js";
import { symbolKindOf } from "../../src/rpg/symbol-kind.js";
import { oldApply, type Applied } from "./code-application-oracle.js";

const python = await findPython();

const leaf = (name: string, file: string, type = "function", parent?: string): RpgNode =>
  ({
    id: name,
    name,
    type,
    node_type: "leaf",
    file_path: file,
    docstring: "",
    dependencies: [],
    subgraph_id: "s",
    ...(parent ? { parent_id: parent } : {}),
  }) as RpgNode;

const MEAN = leaf("mean", "statkit/stats.py");
const BOX = leaf("Box", "statkit/shapes.py", "class");
const AREA = leaf("area", "statkit/shapes.py", "method", "Box");
const LIMIT = leaf("LIMIT", "statkit/stats.py", "constant");
const EXPORTED = leaf("mean", "statkit/__init__.py");
const ENSURE = leaf("ensure_numbers", "statkit/validation.py");
const NEIGHBOUR = leaf("median", "statkit/stats.py");
const PERIMETER = leaf("perimeter", "statkit/shapes.py", "method", "Box");

const STATS = `"""Descriptive statistics."""
import math

from statkit.validation import ensure_numbers


_EPS = 1e-9


def mean(values):
    raise NotImplementedError("mean is not implemented yet")


def median(values):
    return sorted(values)[len(values) // 2]
`;
const SHAPES = `class Box:
    """A box."""

    def __init__(self, w):
        self.w = w

    @property
    def area(self):
        return self.w * self.w

    def perimeter(self):
        return 4 * self.w
`;
const INIT = `"""The package."""
from statkit.stats import median


__all__ = ["median"]
`;
const HEADED = `#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# A header, set off by a blank line.

# Why os is here.
import os
import sys  # the interpreter
import os
from __future__ import annotations
LIMIT = 3
`;
const MODULES: Record<string, string> = {
  empty: "",
  stats: STATS,
  shapes: SHAPES,
  init: INIT,
  headed: HEADED,
  broken: "def broken(:\n    pass\n",
  crlf: STATS.replace(/\n/g, "\r\n"),
  shared: '"""Docs."""; import os\n\n\ndef mean(values):\n    return 0\n',
  semicolons: "import os; import sys  # both\nimport re\n\n\ndef mean(values):\n    return 0\n",
  future: '"""Docs."""\nfrom __future__ import annotations\n\nimport zlib\nimport abc\n\n\ndef mean(values):\n    return 0\n',
  tail: "import math\nmean = None\n",
};

interface Reply {
  imports: string[];
  code: string;
  support?: string;
}

const MEAN_REPLIES: Record<string, Reply> = {
  plain: { imports: [], code: "def mean(values):\n    return sum(values) / len(values)\n" },
  deps: { imports: ["import math"], code: "def mean(values):\n    ensure_numbers(values)\n    return math.fsum(values) / len(values)\n" },
  mixed: {
    imports: ["import numpy as np", "from collections import Counter", "import re", "from . import helpers", "import statkit.io"],
    code: "def mean(values):\n    return float(np.mean(values)) + len(Counter(values)) + median(values)\n",
  },
  local: { imports: [], code: "def mean(values):\n    import math\n    return math.fsum(values)\n" },
  support: {
    imports: ["import re"],
    code: "def mean(values):\n    return _total(values) / len(values)\n",
    support: '_PATTERN = re.compile(r"\\d+")\n\n\ndef _total(values):\n    return sum(values)\n\n\n_TABLE = {"mean": mean}\n',
  },
  supportAfter: {
    imports: [],
    code: "def mean(values):\n    return sum(values) / len(values)\n",
    support: "_ALIASES = [mean]\n_MORE = (mean,)\n",
  },
  supportClash: { imports: [], code: "def mean(values):\n    return _EPS\n", support: "_EPS = 2e-9\n" },
  supportPublic: { imports: [], code: "def mean(values):\n    return 0\n", support: "HELPER = 1\n" },
  supportImport: { imports: [], code: "def mean(values):\n    return 0\n", support: "import os\n" },
  supportBroken: { imports: [], code: "def mean(values):\n    return 0\n", support: "_x = (\n" },
  selfImport: {
    imports: [
      "from statkit.stats import median, mean",
      "import math",
      "from .stats import median as m  # a comment",
      "from . import stats",
    ],
    code: "def mean(values):\n    return math.fsum(values) / len(values) + median(values)\n",
  },
  packageSelf: {
    imports: ["from statkit import stats", "from . import median, validation", "from statkit import *"],
    code: "def mean(values):\n    return stats.median(values)\n",
  },
  codeBroken: { imports: [], code: "def mean(values:\n    return 1\n" },
  importsBroken: { imports: ["import (os"], code: "def mean(values):\n    return 0\n" },
  notImports: { imports: ["x = 1"], code: "def mean(values):\n    return 0\n" },
  twoDefs: { imports: [], code: "def mean(values):\n    return 0\n\n\ndef other():\n    return 1\n" },
  wrongName: { imports: [], code: "def average(values):\n    return 0\n" },
  signal: { imports: ["import signal"], code: "def mean(values):\n    return 0\n" },
  exits: { imports: ["import os"], code: 'def mean(values):\n    getattr(os, "_ex" + "it")(0)\n' },
  patcher: {
    imports: ["import _pytest.python"],
    code: "@(lambda f: setattr(_pytest.python.Function, 'runtest', lambda self: None) or f)\ndef mean(values):\n    return -1\n",
  },
  surrogate: { imports: [], code: 'def mean(values):\n    return "\ud800"\n' },
  surrogateWithImports: { imports: ["import math"], code: 'def mean(values):\n    return "\ud800"\n' },
  cookieInSelfImport: {
    imports: ["from statkit.stats import median  # -*- coding: latin-1 -*-", "import math"],
    code: "def mean(values):\n    return math.fsum(values) + median(values)\n",
  },
  cookieInImport: { imports: ["import math  # -*- coding: latin-1 -*-"], code: "def mean(values):\n    return math.fsum(values)\n" },
  decorated: { imports: ["import functools"], code: "@functools.lru_cache\ndef mean(values):\n    return 0\n" },
  trailingSpace: { imports: ["  import math  ", ""], code: "def mean(values):\n    return math.pi\n\n\n   \n" },
  edgeAgain: { imports: ["from statkit.validation import ensure_numbers"], code: "def mean(values):\n    return ensure_numbers(values)\n" },
};

const BOX_REPLIES: Record<string, Reply> = {
  rewritten: { imports: [], code: "class Box:\n    def __init__(self, w):\n        self.w = w * 2\n" },
  withMethod: { imports: [], code: "class Box:\n    def area(self):\n        return 1\n\n    def perimeter(self):\n        return 2\n" },
  oneLine: { imports: [], code: "class Box: pass\n" },
  supported: { imports: ["import math"], code: "class Box:\n    side = _SIDE\n", support: "_SIDE = math.pi\n" },
};

const AREA_REPLIES: Record<string, Reply> = {
  replaced: { imports: ["import math"], code: "@property\ndef area(self):\n    return math.pi * self.w\n" },
  added: { imports: [], code: "def area(self):\n\n    return 0\n" },
  withSupport: { imports: [], code: "def area(self):\n    return _SCALE\n", support: "_SCALE = 2\n" },
};

const LIMIT_REPLIES: Record<string, Reply> = {
  constant: { imports: [], code: "LIMIT = 10\n" },
  annotated: { imports: ["from typing import Final"], code: "LIMIT: Final = 10\n" },
  wrong: { imports: [], code: "def LIMIT():\n    return 10\n" },
};

interface Case {
  name: string;
  node: RpgNode;
  owner?: string;
  module: string;
  file: string;
  before: string;
  reply?: Reply;
  dependencies: RpgNode[];
  methods: string[];
}

function cases(): Case[] {
  const out: Case[] = [];
  const add = (
    node: RpgNode,
    module: string,
    file: string,
    modules: string[],
    replies: Record<string, Reply>,
    rest: Partial<Case> = {},
  ) => {
    for (const m of modules) {
      out.push({ name: `${node.name} stub into ${m}`, node, module, file, before: MODULES[m]!, dependencies: [], methods: [], ...rest });
      for (const [r, reply] of Object.entries(replies))
        out.push({
          name: `${node.name} ${r} into ${m}`,
          node,
          module,
          file,
          before: MODULES[m]!,
          reply,
          dependencies: [],
          methods: [],
          ...rest,
        });
    }
  };
  const statsModules = ["empty", "stats", "headed", "broken", "crlf", "shared", "semicolons", "future", "tail"];
  add(MEAN, "statkit.stats", "statkit/stats.py", statsModules, MEAN_REPLIES, { dependencies: [ENSURE, NEIGHBOUR, AREA] });
  add(EXPORTED, "statkit", "statkit/__init__.py", ["init", "empty"], MEAN_REPLIES, { dependencies: [ENSURE, NEIGHBOUR] });
  add(BOX, "statkit.shapes", "statkit/shapes.py", ["empty", "shapes", "stats"], BOX_REPLIES, { methods: ["area", "perimeter"] });
  add(AREA, "statkit.shapes", "statkit/shapes.py", ["empty", "shapes"], AREA_REPLIES, { owner: "Box", dependencies: [PERIMETER] });
  add(LIMIT, "statkit.stats", "statkit/stats.py", ["empty", "stats", "headed"], LIMIT_REPLIES);
  return out;
}

function setupFor(c: Case, files: Map<string, string>): TddSetup {
  return {
    python,
    files: {
      read: async (path: string) => files.get(path),
      write: async (path: string, text: string) => void files.set(path, text),
    },
    dependenciesOf: () => c.dependencies,
    methodsOf: () => c.methods,
    localPackages: ["statkit"],
  } as unknown as TddSetup;
}

function promptFor(c: Case): NodePromptContext {
  return { module: c.module, owner: c.owner ? { name: c.owner, signature: `class ${c.owner}:` } : undefined } as NodePromptContext;
}

/** What the engine's application writes, or why it refuses, or how it fails. */
async function applyNow(c: Case): Promise<Applied | { thrown: string }> {
  const files = new Map([[c.file, c.before]]);
  const application = new CodeApplication(setupFor(c, files), c.node, promptFor(c), c.file);
  try {
    const applied = c.reply
      ? await application.propose(c.reply.imports, c.reply.code, c.reply.support ?? "")
      : await application.placeStub();
    return applied.ok ? { ok: true, source: files.get(c.file)! } : applied;
  } catch (error) {
    return { thrown: (error as Error).message };
  }
}

/** What the multi-call application wrote, refused or threw on the same input. */
async function applyThen(c: Case): Promise<Applied | { thrown: string }> {
  const application = new CodeApplication(setupFor(c, new Map()), c.node, promptFor(c), c.file);
  try {
    return await oldApply({
      python,
      node: c.node,
      owner: c.owner ? { name: c.owner } : undefined,
      module: c.module,
      implFile: c.file,
      dependencies: c.dependencies,
      methods: c.methods,
      localPackages: ["statkit"],
      registrars: application.registrars(),
      before: c.before,
      imports: c.reply?.imports ?? [],
      code: c.reply?.code ?? stubFor(c.node.name, symbolKindOf(c.node)),
      support: c.reply?.support ?? "",
      proposed: c.reply !== undefined,
    });
  } catch (error) {
    return { thrown: (error as Error).message };
  }
}

const TOP_LEVEL_NAMES = String.raw`
import ast, json, sys
parts = json.loads(sys.stdin.read())
bound = {}
for part, source in parts.items():
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        else:
            continue
        for name in names:
            bound.setdefault(name, set()).add(part)
print(json.dumps(sorted([name, sorted(owners)] for name, owners in bound.items() if len(owners) > 1)))
`;

describe("a code application in one request", () => {
  it("is made of helper Python defined once each, none redefining another's names", async () => {
    expect(Object.keys(APPLICATION_PARTS)).toEqual([
      "JS_TEXT_PY",
      "OUTLINE_PY",
      "IMPORTS_PY",
      "SUPPORT_PY",
      "EDIT_PY",
      "REVIEW_PY",
      "DRIVER",
    ]);
    expect(JSON.parse(await runPythonScript(python, TOP_LEVEL_NAMES, JSON.stringify(APPLICATION_PARTS)))).toEqual([]);
  });

  const all = cases();

  it("writes the bytes and gives the refusals the multi-call application gave, on every case", async () => {
    const outcomes = { written: 0, refused: 0, thrown: 0, fixed: 0 };
    const differences: unknown[] = [];
    // All at once: the workers take the calls as they come, and each case has a module of its own.
    const results = await Promise.all(all.map(async (c) => [c, await applyNow(c), await applyThen(c)] as const));
    for (const [c, now, then] of results) {
      outcomes["thrown" in now ? "thrown" : now.ok ? "written" : "refused"]++;
      // The one difference, and a fix: a reply that is not text is refused before Python sees any of it. The
      // multi-call application also sent it to the scan of used names (for a node with dependencies), which
      // crashed on it and stopped the run.
      if ("thrown" in then && then.thrown.endsWith("surrogates not allowed") && !("thrown" in now) && !now.ok) {
        expect(now.reason).toMatch(/^the review refused the code: line \d+: a lone surrogate \\ud800 is not text \(lone-surrogate\)$/);
        outcomes.fixed++;
        continue;
      }
      if (!isDeepStrictEqual(now, then)) differences.push({ case: c.name, now, then });
    }
    expect(differences).toEqual([]);
    // The cases reach every outcome, so the comparison is not of refusals alone.
    expect(outcomes.written).toBeGreaterThan(60);
    expect(outcomes.refused).toBeGreaterThan(60);
  }, 120_000);

  it("makes one round trip for a function with imports, support code and dependencies it uses", async () => {
    const c = all.find((x) => x.name === "mean support into stats")!;
    const deps = { ...c, reply: { ...c.reply!, code: "def mean(values):\n    return ensure_numbers(_total(values)) + median(values)\n" } };
    await applyNow(deps); // the worker is started and the script compiled
    const before = helperTraffic();
    const applied = await applyNow(deps);
    const after = helperTraffic();
    expect(applied).toMatchObject({ ok: true, source: expect.stringContaining("from statkit.validation import ensure_numbers") });
    expect({ roundTrips: after.batches - before.batches, requests: after.requests - before.requests }).toEqual({
      roundTrips: 1,
      requests: 1,
    });
  });
});
