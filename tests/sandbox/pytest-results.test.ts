import { describe, it } from "vitest";
import { runPytest } from "../../src/sandbox/pytest.js";
import { makePackage, SANDBOXES } from "./package-dir.js";

const STATS = `def mean(xs):
    return sum(xs) / len(xs)
`;

describe.concurrent.each(SANDBOXES)("runPytest in the %s sandbox", (sandbox) => {
  it("reports exit code 0 and every test as passed when all pass", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "stats.py": STATS,
        "tests/test_stats.py": `from stats import mean

def test_mean_basic():
    assert mean([1, 2, 3]) == 2

def test_mean_single():
    assert mean([4]) == 4
`,
      },
    );
    const result = await runPytest({
      cwd,
      targets: ["tests/test_stats.py::test_mean_basic", "tests/test_stats.py::test_mean_single"],
      sandbox,
    });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.tests.map((t) => [t.id, t.name, t.status])).toEqual([
      ["tests/test_stats.py::test_mean_basic", "test_mean_basic", "passed"],
      ["tests/test_stats.py::test_mean_single", "test_mean_single", "passed"],
    ]);
    expect(result.junitXml).toContain("<testsuite");
    expect(result.output).toContain("2 passed");
  });

  it("collects the cycles the package made at import once they are let go", async ({ expect, onTestFinished }) => {
    // The gate keeps its own objects out of the collector's sight (gc.freeze, for speed): never the package's.
    const cwd = makePackage(
      { onTestFinished },
      {
        "cycles.py": `FREED = []


class Node:
    def __init__(self):
        self.me = self

    def __del__(self):
        FREED.append(True)


KEPT = [Node()]
`,
        "tests/test_cycles.py": `import gc

import cycles


def test_cycles_collected():
    cycles.KEPT.clear()
    gc.collect()
    assert cycles.FREED == [True]
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_cycles.py::test_cycles_collected"], sandbox });
    expect(result).toMatchObject({ exitCode: 0 });
  });

  it("reports exit code 1 with each test's status, the failure message and the traceback", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "stats.py": STATS,
        "tests/test_stats.py": `import pytest
from stats import mean

def test_mean_basic():
    assert mean([1, 2, 3]) == 2

def test_mean_empty():
    assert mean([]) == 0

@pytest.mark.skip(reason="median is not written yet")
def test_median():
    pass

@pytest.fixture
def data():
    raise RuntimeError("fixture broke")

def test_mean_fixture(data):
    pass

class TestMean:
    @pytest.mark.parametrize("xs", [[2], [1, 3]])
    def test_two(self, xs):
        assert mean(xs) == 2
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_stats.py"], sandbox });
    expect(result.exitCode).toBe(1);
    expect(result.tests.map((t) => [t.id, t.status])).toEqual([
      ["tests/test_stats.py::test_mean_basic", "passed"],
      ["tests/test_stats.py::test_mean_empty", "failed"],
      ["tests/test_stats.py::test_median", "skipped"],
      ["tests/test_stats.py::test_mean_fixture", "error"],
      ["tests/test_stats.py::TestMean::test_two[xs0]", "passed"],
      ["tests/test_stats.py::TestMean::test_two[xs1]", "passed"],
    ]);
    const failed = result.tests[1]!;
    expect(failed.message).toBe("ZeroDivisionError: division by zero");
    expect(failed.details).toContain("return sum(xs) / len(xs)");
    expect(result.tests[2]!.message).toBe("median is not written yet");
    expect(result.tests[3]!.message).toContain("RuntimeError: fixture broke");
    expect(result.output).toContain("1 failed, 3 passed, 1 skipped, 1 error");
  });

  it("reports exit code 2 and the broken file when a test file does not import", async ({ expect, onTestFinished }) => {
    const cwd = makePackage({ onTestFinished }, { "tests/test_broken.py": "def test_x(:\n    pass\n" });
    const result = await runPytest({ cwd, targets: ["tests/test_broken.py"], sandbox });
    expect(result.exitCode).toBe(2);
    expect(result.tests).toEqual([expect.objectContaining({ id: "tests/test_broken.py", status: "error" })]);
    expect(result.output).toContain("SyntaxError");
  });

  it("reports exit code 2 when a test raises KeyboardInterrupt", async ({ expect, onTestFinished }) => {
    const cwd = makePackage({ onTestFinished }, { "tests/test_interrupt.py": "def test_interrupt():\n    raise KeyboardInterrupt\n" });
    const result = await runPytest({ cwd, targets: ["tests/test_interrupt.py::test_interrupt"], sandbox });
    expect(result).toMatchObject({ exitCode: 2, timedOut: false });
    expect(result.output).toContain("KeyboardInterrupt");
  });

  it.for([
    ["a target file that does not exist", "tests/test_missing.py"],
    ["an unknown option", "--no-such-option"],
  ])("reports exit code 4 for %s", async ([, target], { expect, onTestFinished }) => {
    const cwd = makePackage({ onTestFinished }, { "tests/test_ok.py": "def test_ok():\n    pass\n" });
    const result = await runPytest({ cwd, targets: [target!], sandbox });
    expect(result).toMatchObject({ exitCode: 4, timedOut: false, tests: [] });
  });

  it("reports exit code 5 when no tests are collected", async ({ expect, onTestFinished }) => {
    const cwd = makePackage({ onTestFinished }, { "tests/test_empty.py": "# nothing here yet\n" });
    const result = await runPytest({ cwd, targets: ["tests/test_empty.py"], sandbox });
    expect(result).toMatchObject({ exitCode: 5, timedOut: false, tests: [] });
  });
});
