import { describe, expect, it } from "vitest";
import { greenGateRoute, mutantVerdicts, ownedTestsProblem, redGateRoute } from "../../src/engine/routes.js";
import type { PytestResult, TestCaseResult } from "../../src/sandbox/pytest.js";
import type { TestOutcome } from "../../src/sandbox/signed-report.js";

const FILE = "tests/test_stats.py";
const OWNED = [`${FILE}::test_mean`, `${FILE}::TestMedian`];

/** A run whose signed report holds `outcomes`, or none at all (`null`). */
const run = (exitCode: number, outcomes: Record<string, TestOutcome> | null = {}, extra: Partial<PytestResult> = {}): PytestResult => ({
  exitCode,
  timedOut: false,
  output: "",
  tests: [],
  junitXml: undefined,
  durationMs: 1,
  report:
    outcomes === null
      ? { authentic: false, problem: "pytest ended without rpg-forge's signed report (it was cut short)" }
      : { authentic: true, exitStatus: exitCode, outcomes: new Map(Object.entries(outcomes)), collectErrors: [], junitXml: undefined },
  ...extra,
});
const allPassed = { [`${FILE}::test_mean`]: "passed", [`${FILE}::TestMedian::test_odd`]: "passed" } as const;
const someFailed = { [`${FILE}::test_mean`]: "failed", [`${FILE}::TestMedian::test_odd`]: "passed" } as const;
const collectionError: TestCaseResult = {
  id: "tests.test_stats",
  name: "tests.test_stats",
  status: "error",
  message: "collection failure",
  durationMs: 0,
};

describe("the red gate's routes", () => {
  it.each([
    [1, "red"],
    [0, "vacuous"],
    [4, "broken"],
    [5, "broken"],
    [3, "environment"],
    [2, "environment"],
    [-1, "environment"],
  ] as const)("exit %i with a signed report → %s", (code, route) => {
    expect(redGateRoute(run(code, code === 1 ? someFailed : allPassed), FILE, OWNED)).toBe(route);
  });

  it("treats exit 2 from a collection error in the node's own test file as broken tests", () => {
    expect(redGateRoute(run(2, {}, { tests: [collectionError] }), FILE, OWNED)).toBe("broken");
    expect(redGateRoute(run(2, {}, { output: "ERROR collecting tests/test_stats.py" }), FILE, OWNED)).toBe("broken");
    expect(redGateRoute(run(2, {}, { output: "ERROR collecting tests/test_other.py" }), FILE, OWNED)).toBe("environment");
  });

  it("treats tests killed at the time limit as broken", () => {
    expect(redGateRoute(run(-1, null, { timedOut: true }), FILE, OWNED)).toBe("broken");
  });

  it("treats failing tests without a signed report, or with one of the node's tests missing, as broken", () => {
    expect(redGateRoute(run(1, null), FILE, OWNED)).toBe("broken");
    expect(redGateRoute(run(0, null), FILE, OWNED)).toBe("broken");
    expect(redGateRoute(run(1, { [`${FILE}::test_mean`]: "failed" }), FILE, OWNED)).toBe("broken");
  });
});

describe("the green gate's routes", () => {
  it.each([
    [0, "green"],
    [1, "failing"],
    [2, "failing"],
    [3, "environment"],
    [4, "environment"],
    [5, "environment"],
  ] as const)("exit %i with a signed report of passes → %s", (code, route) => {
    expect(greenGateRoute(run(code, allPassed), FILE, OWNED)).toBe(route);
  });

  it("counts a run killed at its hard time limit as the environment's, not the implementation's", () => {
    expect(greenGateRoute(run(-1, null, { timedOut: true }), FILE, OWNED)).toBe("environment");
  });

  it("never passes exit 0 without a signed report, or with a test of the node missing, failed, errored or skipped", () => {
    expect(greenGateRoute(run(0, null), FILE, OWNED)).toBe("failing");
    expect(greenGateRoute(run(0, { [`${FILE}::test_mean`]: "passed" }), FILE, OWNED)).toBe("failing");
    for (const outcome of ["failed", "error", "skipped"] as const) {
      expect(greenGateRoute(run(0, { ...allPassed, [`${FILE}::TestMedian::test_even`]: outcome }), FILE, OWNED)).toBe("failing");
    }
    expect(greenGateRoute(run(0, { ...allPassed, [`${FILE}::test_mean[2]`]: "passed" }), FILE, OWNED)).toBe("green");
  });

  it("sends a module that no longer imports (exit 4: the node's test file did not collect) to the debug loop", () => {
    const result = run(4, {});
    if (result.report.authentic) result.report.collectErrors.push(FILE);
    expect(greenGateRoute(result, FILE, OWNED)).toBe("failing");
  });

  it("says what is missing or not passed", () => {
    expect(ownedTestsProblem(run(0, { [`${FILE}::test_mean`]: "skipped" }), OWNED, "passed")).toBe(
      "the run's report has no result for TestMedian",
    );
    expect(ownedTestsProblem(run(0, someFailed), OWNED, "passed")).toBe("not every test passed: test_mean failed");
    expect(ownedTestsProblem(run(0, null), OWNED, "passed")).toContain("signed report");
  });
});

describe("each mutant's verdict from a run of all of them", () => {
  const variant = (exitStatus: number, outcomes: Record<string, TestOutcome>, collectErrors: string[] = [], startedProcess = false) => ({
    exitStatus,
    outcomes: new Map(Object.entries(outcomes)),
    collectErrors,
    startedProcess,
  });
  const withVariants = (variants: ReturnType<typeof variant>[], extra: Partial<PytestResult> = {}): PytestResult => {
    const result = run(0, {}, extra);
    return result.report.authentic ? { ...result, report: { ...result.report, variants } } : result;
  };

  it("judges each as the green gate judges a run of its own: passed survived, failing or not collected killed", () => {
    const result = withVariants([variant(0, allPassed), variant(1, someFailed), variant(2, {}, [FILE]), variant(3, allPassed)]);
    expect(mutantVerdicts(result, 4, FILE, OWNED)).toEqual(["survived", "killed", "killed", "error"]);
  });

  it("leaves a mutant whose tests started a process to a run of its own, whatever its session said", () => {
    const result = withVariants([variant(0, allPassed, [], true), variant(1, someFailed, [], true), variant(1, someFailed)]);
    expect(mutantVerdicts(result, 3, FILE, OWNED)).toEqual(["alone", "alone", "killed"]);
  });

  it("counts a mutant whose run reported only some of the node's tests as killed, never survived", () => {
    expect(mutantVerdicts(withVariants([variant(0, { [`${FILE}::test_mean`]: "passed" })]), 1, FILE, OWNED)).toEqual(["killed"]);
  });

  it.each([
    ["without a signed report", run(0, null), 1],
    ["killed at its time limit", withVariants([variant(0, allPassed)], { timedOut: true }), 1],
    ["with a record of fewer mutants than it was given", withVariants([variant(0, allPassed)]), 2],
  ] as const)("tells nothing of any mutant from a run %s", (_, result, count) => {
    expect(mutantVerdicts(result, count, FILE, OWNED)).toEqual(Array.from({ length: count }, () => "error"));
  });
});
