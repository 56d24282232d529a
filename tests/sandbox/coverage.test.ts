import { describe, it } from "vitest";
import { measureCoverage } from "../../src/sandbox/coverage.js";
import { coveragePython, pythonWithoutCoverage } from "../helpers/coverage-python.js";
import { makePackage, makeTempDir, SANDBOXES } from "./package-dir.js";

// A node's module: `sign` (lines 4-7) is the node, `other` (lines 10-13) is another node's code in the same file.
const SIGN = `"""Signs."""


def sign(x):
    if x < 0:
        return -1
    return 1


def other(y):
    if y:
        return 2
    return 3
`;
const SIGN_LINES = [[4, 7]] as const;

/** The four lines of `sign` in a module that has more before it. */
function signLines(module: string): [number, number][] {
  const start = module.split("\n").indexOf("def sign(x):") + 1;
  return [[start, start + 3]];
}

const testsCalling = (...calls: string[]): string =>
  `from stats.sign import sign\n\n\ndef test_sign():\n${calls.map((call) => `    assert ${call}\n`).join("")}`;

function signPackage(test: Parameters<typeof makePackage>[0], tests: string, files: Record<string, string> = {}): string {
  return makePackage(test, { "stats/__init__.py": "", "stats/sign.py": SIGN, "tests/test_sign.py": tests, ...files });
}

const TARGETS = ["tests/test_sign.py::test_sign"];

describe.concurrent.each(SANDBOXES)("measureCoverage in the %s sandbox", (sandbox) => {
  it("counts the statements and branch exits of the node's lines that its tests executed", async ({ expect, onTestFinished }) => {
    const cwd = signPackage({ onTestFinished }, testsCalling("sign(3) == 1"));
    const python = await coveragePython();
    const measured = await measureCoverage({ cwd, targets: TARGETS, sandbox, python, file: "stats/sign.py", ranges: SIGN_LINES });
    // def (run at import), the if and `return 1` of 4 statements; the if's way into `return 1` of its 2.
    expect(measured).toMatchObject({ available: true, lines: { covered: 3, total: 4 }, branches: { covered: 1, total: 2 } });
  });

  it("gives full coverage when the tests take both ways", async ({ expect, onTestFinished }) => {
    const cwd = signPackage({ onTestFinished }, testsCalling("sign(3) == 1", "sign(-3) == -1"));
    const python = await coveragePython();
    const measured = await measureCoverage({ cwd, targets: TARGETS, sandbox, python, file: "stats/sign.py", ranges: SIGN_LINES });
    expect(measured).toMatchObject({ available: true, lines: { covered: 4, total: 4 }, branches: { covered: 2, total: 2 } });
  });

  it("counts only the given lines: another function of the module is not the node's", async ({ expect, onTestFinished }) => {
    const cwd = signPackage({ onTestFinished }, testsCalling("sign(3) == 1", "sign(-3) == -1"));
    const python = await coveragePython();
    const run = { cwd, targets: TARGETS, sandbox, python, file: "stats/sign.py" };
    const [other, both] = await Promise.all([
      measureCoverage({ ...run, ranges: [[10, 13]] }),
      measureCoverage({ ...run, ranges: [...SIGN_LINES, [10, 13]] }),
    ]);
    // `other`'s def ran at import; nothing else of it did.
    expect(other).toMatchObject({ lines: { covered: 1, total: 4 }, branches: { covered: 0, total: 2 } });
    expect(both).toMatchObject({ lines: { covered: 5, total: 8 }, branches: { covered: 2, total: 4 } });
  });

  it("ignores the package's coverage configuration and its pragmas: every line counts", async ({ expect, onTestFinished }) => {
    const excused = SIGN.replace("        return -1", "        return -1  # pragma: no cover").replace(
      "if x < 0:",
      "if x < 0:  # pragma: no branch",
    );
    const cwd = signPackage({ onTestFinished }, testsCalling("sign(3) == 1"), {
      "stats/sign.py": excused,
      ".coveragerc": "[run]\nbranch = False\ninclude = nothing/*\n[report]\nexclude_lines =\n    return\n    if\n",
    });
    const python = await coveragePython();
    const measured = await measureCoverage({ cwd, targets: TARGETS, sandbox, python, file: "stats/sign.py", ranges: SIGN_LINES });
    if (!measured.available) throw new Error(measured.note);
    expect(measured).toMatchObject({ available: true, lines: { covered: 3, total: 4 }, branches: { covered: 1, total: 2 } });
  });
});

describe("measureCoverage without coverage.py", () => {
  it("gives a note naming the interpreter and how to install it, and no figure", async ({ expect, onTestFinished }) => {
    const cwd = signPackage({ onTestFinished }, testsCalling("sign(3) == 1"));
    const python = pythonWithoutCoverage(makeTempDir({ onTestFinished }), await coveragePython());
    const measured = await measureCoverage({
      cwd,
      targets: TARGETS,
      sandbox: "process",
      python,
      file: "stats/sign.py",
      ranges: SIGN_LINES,
    });
    expect(measured).toEqual({
      available: false,
      note: `coverage.py is not installed for ${python.executable}: apt-get install python3-coverage, or pip install coverage`,
    });
  });
});

// The module under test is generated code, and runs in the interpreter that measures it.
describe.concurrent.each(SANDBOXES)("a module measured in the %s sandbox", (sandbox) => {
  it("gets its honest figure after writing coverage data files and settings where it can", async ({ expect, onTestFinished }) => {
    const forger = `import os, sqlite3
for folder in (".", os.environ["HOME"], os.environ["TMPDIR"], os.path.dirname(os.environ["HOME"])):
    try:
        with open(os.path.join(folder, ".coverage"), "wb") as f:
            f.write(b"not coverage data")
        with open(os.path.join(folder, ".coveragerc"), "w") as f:
            f.write("[report]\\nexclude_lines =\\n    return\\n")
    except OSError:
        pass
os.environ["COVERAGE_FILE"] = os.path.join(os.environ["TMPDIR"], ".coverage")
os.environ["COVERAGE_RCFILE"] = os.path.join(os.environ["TMPDIR"], ".coveragerc")
`;
    const module = forger + SIGN;
    const cwd = signPackage({ onTestFinished }, testsCalling("sign(3) == 1"), { "stats/sign.py": module });
    const python = await coveragePython();
    const ranges = signLines(module);
    const measured = await measureCoverage({ cwd, targets: TARGETS, sandbox, python, file: "stats/sign.py", ranges });
    expect(measured).toMatchObject({ available: true, lines: { covered: 3, total: 4 }, branches: { covered: 1, total: 2 } });
  });

  it("can claim more of its lines from inside the interpreter, never more than there are", async ({ expect, onTestFinished }) => {
    // coverage.py's tracer keeps what it recorded in a dict the traced code can reach (sys.gettrace().data):
    // why the figure is for people and decides nothing (decision 0023). The totals are parsed from a copy outside.
    const forger = `import os, sys
_recorded = getattr(sys.gettrace(), "data", None)
if isinstance(_recorded, dict):
    _mine = _recorded.setdefault(os.path.realpath(__file__), set())
    _packed = all(type(_arc) is int for _arc in list(_mine))  # the C tracer packs (a, b) into one int
    for _a in range(-1, 100):
        for _b in range(-1, 100):
            if _packed:
                _mine.add(abs(_a) | abs(_b) << 20 | (_a < 0) << 40 | (_b < 0) << 41)
            else:
                _mine.add((_a, _b))
`;
    const module = forger + SIGN;
    const cwd = signPackage({ onTestFinished }, testsCalling("sign(3) == 1"), { "stats/sign.py": module });
    const python = await coveragePython();
    const ranges = signLines(module);
    const measured = await measureCoverage({ cwd, targets: TARGETS, sandbox, python, file: "stats/sign.py", ranges });
    if (!measured.available) throw new Error(measured.note);
    // It claims every arc from line -1 to 99 (sign(-3) never ran), and gets all of sign: the totals stay those of its source.
    expect(measured).toMatchObject({ lines: { covered: 4, total: 4 }, branches: { covered: 2, total: 2 } });
  });

  it("ends its run, and gets no figure, when it turns the tracer off", async ({ expect, onTestFinished }) => {
    const cwd = signPackage({ onTestFinished }, testsCalling("sign(3) == 1"), {
      "stats/sign.py": `import sys\nsys.settrace(None)\n${SIGN}`,
    });
    const python = await coveragePython();
    const measured = await measureCoverage({ cwd, targets: TARGETS, sandbox, python, file: "stats/sign.py", ranges: [[6, 9]] });
    expect(measured).toEqual({ available: false, note: expect.stringContaining("no coverage figure: ") });
  });

  it("is measured in a thread its tests start, its own Thread subclass included", async ({ expect, onTestFinished }) => {
    const threaded = `${SIGN}

import threading


class Worker(threading.Thread):
    def run(self):
        self.result = sign(-3)
`;
    const tests = `from stats.sign import Worker


def test_sign():
    worker = Worker()
    worker.start()
    worker.join()
    assert worker.result == -1
`;
    const cwd = signPackage({ onTestFinished }, tests, { "stats/sign.py": threaded });
    const python = await coveragePython();
    const measured = await measureCoverage({ cwd, targets: TARGETS, sandbox, python, file: "stats/sign.py", ranges: SIGN_LINES });
    if (!measured.available) throw new Error(measured.note);
    expect(measured).toMatchObject({ available: true, lines: { covered: 3, total: 4 }, branches: { covered: 1, total: 2 } });
  });
});
