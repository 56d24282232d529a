import { describe, expect, it } from "vitest";
import { failureBrief, stableOutput } from "../../src/engine/failure-brief.js";
import type { PytestResult } from "../../src/sandbox/pytest.js";

const output = (root: string, seconds: string, address: string) =>
  [
    "F.",
    "=================================== FAILURES ===================================",
    "___________________________________ test_mean ___________________________________",
    `${root}/tests/test_descriptive.py:7: in test_mean`,
    `    assert mean([1, 2]) == 1.5`,
    `E   AssertionError: <object at ${address}> != 1.5`,
    `HOME=/tmp/rpg-forge-pytest-${seconds.replace(".", "")}/home`,
    `1 failed, 1 passed in ${seconds}s`,
  ].join("\n");

describe("the failure brief", () => {
  it("is the same for the same failure, wherever and however fast it ran", () => {
    const a = stableOutput(output("/tmp/out-a", "0.31", "0x7f3a2b1c9d80"), "/tmp/out-a");
    const b = stableOutput(output("/home/me/out", "12.04", "0x7f11aa22bb33"), "/home/me/out");
    expect(a).toBe(b);
    expect(a).toContain("tests/test_descriptive.py:7: in test_mean");
    expect(a).toContain("1 failed, 1 passed\n".trim());
    expect(a).not.toMatch(/\d+\.\d+s/);
  });

  it("lists the failing tests, the output's end and what earlier attempts tried", () => {
    const result: PytestResult = {
      exitCode: 1,
      timedOut: false,
      output: output("/r", "0.1", "0x1234567890"),
      tests: [
        { id: "tests/t.py::test_mean", name: "test_mean", status: "failed", message: "AssertionError: 1.0 != 1.5", durationMs: 1 },
        { id: "tests/t.py::test_ok", name: "test_ok", status: "passed", durationMs: 1 },
      ],
      junitXml: undefined,
      report: { authentic: false, problem: "not needed for the brief" },
      durationMs: 10,
    };
    const brief = failureBrief(
      result,
      [{ label: "implementation", tried: "sum over count", outcome: "1 of 2 tests failed: test_mean" }],
      "/r",
      200,
    );
    expect(brief).toContain("Failing tests (1 of 2):\n- test_mean: AssertionError: 1.0 != 1.5");
    expect(brief).toContain("pytest output (end):\n[... ");
    expect(brief).toContain("Earlier attempts:\n- implementation: sum over count → 1 of 2 tests failed: test_mean");
    expect(failureBrief(result, [], "/r", 0)).not.toContain("pytest output");
  });
});
