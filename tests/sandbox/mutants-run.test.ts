import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { runGate, runPytest, type SandboxKind } from "../../src/sandbox/pytest.js";
import { findPython } from "../../src/sandbox/python.js";
import type { VariantRecord } from "../../src/sandbox/signed-report.js";
import { makePackage, SANDBOXES } from "./package-dir.js";

// A node's mutants, run in one interpreter (decision 0022): each must get the record a run of its own would give.

const CORE = `"""Clamping."""
from lab.registry import REGISTERED

REGISTERED.append("clamp")


def clamp(x):
    """x, or 0 below 0."""
    if x < 0:
        return 0
    return x
`;

const TESTS = `from lab.core import clamp
from lab.registry import REGISTERED


def test_clamp_negative():
    assert clamp(-1) == 0


def test_clamp_positive():
    assert clamp(3) == 3


def test_clamp_registered_once():
    assert REGISTERED == ["clamp"]
`;

const TARGETS = ["test_clamp_negative", "test_clamp_positive", "test_clamp_registered_once"].map((t) => `tests/test_core.py::${t}`);

const MUTANTS = [
  CORE.replace("x < 0", "x > 0"), // both clamp tests fail
  CORE, // survives
  CORE.replace("return x\n", "return x + 1\n"), // one fails
  `${CORE}\nraise ImportError("the module does not import")\n`, // the test module does not collect
  CORE.replace("return 0\n", "return 0 if x < -5 else 0\n"), // survives, though changed
];

const lab = (test: Parameters<typeof makePackage>[0]): string =>
  makePackage(test, {
    "lab/__init__.py": "",
    "lab/registry.py": "REGISTERED = []\n",
    "lab/core.py": CORE,
    "tests/test_core.py": TESTS,
  });

const recordOf = (outcomes: ReadonlyMap<string, string>, exitStatus: number) => ({ exitStatus, outcomes: Object.fromEntries(outcomes) });

describe.concurrent.each(SANDBOXES)("a node's mutants in one interpreter, in the %s sandbox", (sandbox: SandboxKind) => {
  it("gives each mutant the record a run of its own gives, formats no failure, and leaves the module's file as it was", async ({
    expect,
    onTestFinished,
  }) => {
    const together = lab({ onTestFinished });
    const result = await runGate({ cwd: together, targets: TARGETS, sandbox }, { mutants: { file: "lab/core.py", sources: MUTANTS } });
    expect(result.report.authentic).toBe(true);
    const variants = result.report.authentic ? (result.report.variants ?? []) : [];
    expect(readFileSync(join(together, "lab/core.py"), "utf8")).toBe(CORE);

    // The same mutants, each written into a package of its own and run alone.
    const alone = [];
    for (const source of MUTANTS) {
      const cwd = lab({ onTestFinished });
      writeFileSync(join(cwd, "lab/core.py"), source);
      const run = await runPytest({ cwd, targets: TARGETS, sandbox });
      if (!run.report.authentic) throw new Error(run.report.problem);
      alone.push({ ...recordOf(run.report.outcomes, run.report.exitStatus), collectErrors: run.report.collectErrors });
    }
    expect(variants.map((v: VariantRecord) => ({ ...recordOf(v.outcomes, v.exitStatus), collectErrors: v.collectErrors }))).toEqual(alone);
    // Not all alike: the comparison covers killed mutants, survivors and a module that does not import.
    expect(alone.map((r) => r.exitStatus)).toEqual([1, 0, 1, alone[3]!.exitStatus, 0]);
    expect(alone[3]!.collectErrors).toEqual(["tests/test_core.py"]);
    // Outcomes only: no failure's source or traceback is formatted for the output, though the first mutant fails two tests.
    expect(result.output).toMatch(/\d+ failed/);
    expect(result.output).not.toMatch(/def test_clamp|assert clamp|AssertionError/);
  });

  it("never runs a mutant from the original's cached bytecode", async ({ expect, onTestFinished }) => {
    const cwd = lab({ onTestFinished });
    // The original compiled into __pycache__ beside it, as a run of the package's own tests leaves it.
    execFileSync(await findPython(), ["-m", "py_compile", join(cwd, "lab/core.py")]);
    const result = await runGate({ cwd, targets: TARGETS, sandbox }, { mutants: { file: "lab/core.py", sources: [MUTANTS[0]!] } });
    const variants = result.report.authentic ? result.report.variants : undefined;
    expect(variants?.map((v) => v.exitStatus)).toEqual([1]);
  });

  it("serves a mutant of a package's __init__.py, the package's submodules still found", async ({ expect, onTestFinished }) => {
    const init =
      'from lab.registry import REGISTERED\n\n\ndef first():\n    """The first registered."""\n    return REGISTERED[0] if REGISTERED else None\n';
    const cwd = makePackage(
      { onTestFinished },
      {
        "lab/__init__.py": init,
        "lab/registry.py": 'REGISTERED = ["a"]\n',
        "tests/test_first.py": "from lab import first\n\n\ndef test_first_registered():\n    assert first() == 'a'\n",
      },
    );
    const sources = [init.replace("return REGISTERED[0]", "return None"), init];
    const result = await runGate(
      { cwd, targets: ["tests/test_first.py::test_first_registered"], sandbox },
      { mutants: { file: "lab/__init__.py", sources } },
    );
    const variants = result.report.authentic ? result.report.variants : undefined;
    expect(variants?.map((v) => v.exitStatus)).toEqual([1, 0]);
  });

  it("says of a session whose tests started a process that its verdict is not the mutant's", async ({ expect, onTestFinished }) => {
    // The child imports the module from disk: the original, never the mutant the session's interpreter serves.
    const child = `import subprocess, sys


def test_clamp_in_a_child():
    out = subprocess.run([sys.executable, "-c", "from lab.core import clamp; print(clamp(-1))"], capture_output=True, text=True)
    assert out.stdout.strip() == "0"
`;
    const cwd = makePackage(
      { onTestFinished },
      {
        "lab/__init__.py": "",
        "lab/registry.py": "REGISTERED = []\n",
        "lab/core.py": CORE,
        "tests/test_child.py": child,
        "tests/__init__.py": "",
      },
    );
    const targets = ["tests/test_child.py::test_clamp_in_a_child"];
    const result = await runGate({ cwd, targets, sandbox }, { mutants: { file: "lab/core.py", sources: [MUTANTS[0]!, CORE] } });
    const variants = result.report.authentic ? result.report.variants : undefined;
    expect(variants?.map((v) => v.startedProcess)).toEqual([true, true]);
    const inProcess = await runGate(
      { cwd: lab({ onTestFinished }), targets: TARGETS, sandbox },
      { mutants: { file: "lab/core.py", sources: [CORE] } },
    );
    expect(inProcess.report.authentic && inProcess.report.variants?.map((v) => v.startedProcess)).toEqual([false]);
  });

  it("finalizes what a session left in cycles before the next session starts, not in its tests", async ({ expect, onTestFinished }) => {
    // Garbage the test module leaves at import, whose finalizer writes to stderr: uncaptured between the sessions, and
    // held by pytest's capture during them. With the collector's own passes off, only an explicit collection finds it.
    const cycle = [
      "import gc, os",
      "",
      "gc.disable()",
      "",
      "class Cycle:",
      "    def __init__(self):",
      "        self.me = self",
      "",
      "    def __del__(self):",
      "        os.write(2, b'finalized between sessions\\n')",
      "",
      "Cycle()",
      "",
    ].join("\n");
    const cwd = lab({ onTestFinished });
    writeFileSync(join(cwd, "tests/test_core.py"), cycle + TESTS);
    const result = await runGate(
      { cwd, targets: ["tests/test_core.py"], sandbox },
      { mutants: { file: "lab/core.py", sources: [CORE, CORE] } },
    );
    expect(result.report.authentic).toBe(true);
    expect(result.output).toContain("finalized between sessions");
  });

  it("leaves no record of any mutant when one of them ends the interpreter", async ({ expect, onTestFinished }) => {
    const cwd = lab({ onTestFinished });
    const exits = `${CORE}\nimport os\nos._exit(0)\n`;
    const result = await runGate({ cwd, targets: TARGETS, sandbox }, { mutants: { file: "lab/core.py", sources: [CORE, exits, CORE] } });
    expect(result.report).toMatchObject({ authentic: false });
  });
});
