import { describe, expect, it } from "vitest";
import { greenGateRoute, redGateRoute } from "../../src/engine/routes.js";
import type { PytestResult, TestCaseResult } from "../../src/sandbox/pytest.js";

const run = (exitCode: number, extra: Partial<PytestResult> = {}): PytestResult => ({
  exitCode,
  timedOut: false,
  output: "",
  tests: [],
  junitXml: undefined,
  durationMs: 1,
  ...extra,
});
const collectionError: TestCaseResult = {
  id: "tests.test_stats",
  name: "tests.test_stats",
  status: "error",
  message: "collection failure",
  durationMs: 0,
};

describe("the red gate's routes, by pytest's exit code alone", () => {
  it.each([
    [1, "red"],
    [0, "vacuous"],
    [4, "broken"],
    [5, "broken"],
    [3, "environment"],
    [2, "environment"],
    [-1, "environment"],
  ] as const)("exit %i → %s", (code, route) => {
    expect(redGateRoute(run(code), "tests/test_stats.py")).toBe(route);
  });

  it("treats exit 2 from a collection error in the node's own test file as broken tests", () => {
    expect(redGateRoute(run(2, { tests: [collectionError] }), "tests/test_stats.py")).toBe("broken");
    expect(redGateRoute(run(2, { output: "ERROR collecting tests/test_stats.py" }), "tests/test_stats.py")).toBe("broken");
    expect(redGateRoute(run(2, { output: "ERROR collecting tests/test_other.py" }), "tests/test_stats.py")).toBe("environment");
  });

  it("treats tests killed at the time limit as broken", () => {
    expect(redGateRoute(run(-1, { timedOut: true }), "tests/test_stats.py")).toBe("broken");
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
  ] as const)("exit %i → %s", (code, route) => {
    expect(greenGateRoute(run(code))).toBe(route);
  });

  it("sends an implementation killed at the time limit to the debug loop", () => {
    expect(greenGateRoute(run(-1, { timedOut: true }))).toBe("failing");
  });
});
