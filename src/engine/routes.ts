import type { PytestResult } from "../sandbox/pytest.js";

/**
 * The gates' decisions, made from pytest's exit code and nothing the model says
 * (seed 001): 0 passed, 1 tests failed, 2 interrupted, 3 internal error, 4 usage
 * error, 5 no tests collected.
 */
export type RedRoute = "red" | "vacuous" | "broken" | "environment";
export type GreenRoute = "green" | "failing" | "environment";

/**
 * Red gate, run with the node's symbol a stub: the new tests must fail (1). Passing
 * tests (0) test nothing; 4 and 5 mean the test file itself is broken. pytest also
 * exits 2 when a test file fails to import; when the JUnit report pins that error on
 * the node's own test file, the tests are broken, not the environment.
 */
export function redGateRoute(result: PytestResult, testFile: string): RedRoute {
  if (result.timedOut) return "broken";
  switch (result.exitCode) {
    case 1:
      return "red";
    case 0:
      return "vacuous";
    case 4:
    case 5:
      return "broken";
    case 2:
      return collectionErrorIn(result, testFile) ? "broken" : "environment";
    default:
      return "environment";
  }
}

/**
 * Green gate: 0 passes. Failing tests (1), a module that no longer imports (2) and a
 * run killed at its time limit are the implementation's fault and go to the debug
 * loop; 3, 4 and 5 cannot be fixed by changing the implementation.
 */
export function greenGateRoute(result: PytestResult): GreenRoute {
  if (result.timedOut) return "failing";
  if (result.exitCode === 0) return "green";
  if (result.exitCode === 1 || result.exitCode === 2) return "failing";
  return "environment";
}

function collectionErrorIn(result: PytestResult, testFile: string): boolean {
  const moduleName = testFile.replace(/\.py$/, "").replace(/\//g, ".");
  return (
    result.tests.some((t) => t.status === "error" && (t.id.includes(testFile) || t.id.includes(moduleName))) ||
    result.output.includes(`ERROR collecting ${testFile}`)
  );
}
