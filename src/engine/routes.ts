import type { PytestResult } from "../sandbox/pytest.js";
import type { BatchVerdict, MutantVerdict } from "./test-strength.js";

/**
 * The gates' decisions, made from pytest's exit code and the run's signed report, and
 * nothing the model says (seed 001). Exit codes: 0 passed, 1 tests failed, 2
 * interrupted, 3 internal error, 4 usage error, 5 no tests collected. An exit code
 * alone proves nothing: generated code can end the interpreter with any code it likes,
 * so a pass also needs rpg-forge's signed report naming every test the node owns as
 * passed (src/sandbox/gate-bootstrap.ts).
 */
export type RedRoute = "red" | "vacuous" | "broken" | "environment";
export type GreenRoute = "green" | "failing" | "environment";

/**
 * Red gate, run with the node's symbol a stub: the new tests must fail (1), every one
 * of them collected. Passing tests (0) test nothing; 4 and 5 mean the test file itself
 * is broken, and so does a run that ends without its signed report (the tests cut it
 * short). pytest exits 2 or 4 when the test file fails to import; when the report pins
 * that on the node's own test file, the tests are broken, not the environment.
 */
export function redGateRoute(result: PytestResult, testFile: string, owned: readonly string[]): RedRoute {
  if (result.timedOut) return "broken";
  switch (result.exitCode) {
    case 1:
      return ownedTestsProblem(result, owned, "collected") === undefined ? "red" : "broken";
    case 0:
      return result.report.authentic ? "vacuous" : "broken";
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
 * Green gate: a pass is exit 0 and a signed report in which each of the node's tests
 * passed. Failing tests (1), a run cut short or without its report and a module that no
 * longer imports (2, or 4 when the collection error is in the node's test file) are the
 * implementation's fault and go to the debug loop; 3, 5 and other usage errors cannot be
 * fixed by changing the implementation. A test over its own time limit fails like any
 * other (exit 1); a whole run killed at the hard limit counts as the environment's
 * (PRD epic 4.5, decision 0020).
 */
export function greenGateRoute(result: PytestResult, testFile: string, owned: readonly string[]): GreenRoute {
  if (result.timedOut) return "environment";
  switch (result.exitCode) {
    case 0:
      return ownedTestsProblem(result, owned, "passed") === undefined ? "green" : "failing";
    case 1:
    case 2:
      return "failing";
    case 4:
      return collectionErrorIn(result, testFile) ? "failing" : "environment";
    default:
      return "environment";
  }
}

/**
 * Why the signed report does not show each owned test (a test function or class, whose
 * parametrized cases and methods it owns) collected, or passed; undefined when it does.
 * Skipped and expected-to-fail tests do not pass.
 */
export function ownedTestsProblem(result: PytestResult, owned: readonly string[], required: "collected" | "passed"): string | undefined {
  const report = result.report;
  if (!report.authentic) return report.problem;
  const missing: string[] = [];
  const notPassed: string[] = [];
  for (const id of owned) {
    const cases = [...report.outcomes].filter(([test]) => isCaseOf(test, id));
    if (cases.length === 0) missing.push(id);
    for (const [test, outcome] of cases) if (outcome !== "passed") notPassed.push(`${test} ${outcome}`);
  }
  const short = (ids: string[]): string => ids.map((id) => id.split("::").slice(1).join("::") || id).join(", ");
  if (missing.length > 0) return `the run's report has no result for ${short(missing)}`;
  if (required === "passed" && notPassed.length > 0) return `not every test passed: ${short(notPassed)}`;
  return undefined;
}

/** Whether a test id is `owned` itself or one of its cases: a parametrized case (`id[...]`) or a method of a test class (`id::...`). */
export function isCaseOf(test: string, owned: string): boolean {
  return test === owned || test.startsWith(`${owned}[`) || test.startsWith(`${owned}::`);
}

function collectionErrorIn(result: PytestResult, testFile: string): boolean {
  if (result.report.authentic && result.report.collectErrors.includes(testFile)) return true;
  const moduleName = testFile.replace(/\.py$/, "").replace(/\//g, ".");
  return (
    result.tests.some((t) => t.status === "error" && (t.id.includes(testFile) || t.id.includes(moduleName))) ||
    result.output.includes(`ERROR collecting ${testFile}`)
  );
}

/**
 * Each mutant's verdict from a mutants' run (decision 0022), judged as the green gate judges a run of its own: its
 * tests passed (survived), failed (killed), or could tell neither (error). A run without an authentic record of every
 * mutant (cut short, killed at its time limit, a forged or missing report) tells nothing of any of them. A session
 * whose tests started a process is "alone": that process imported the module from disk, not the mutant, so only a
 * run with the mutant written in place of the module can tell.
 */
export function mutantVerdicts(result: PytestResult, count: number, testFile: string, owned: readonly string[]): BatchVerdict[] {
  const variants = result.report.authentic && !result.timedOut ? result.report.variants : undefined;
  if (variants?.length !== count) return Array.from({ length: count }, () => "error");
  return variants.map((variant) => {
    if (variant.startedProcess) return "alone";
    const run: PytestResult = {
      exitCode: variant.exitStatus,
      timedOut: false,
      output: "",
      tests: [],
      junitXml: undefined,
      report: {
        authentic: true,
        exitStatus: variant.exitStatus,
        outcomes: variant.outcomes,
        collectErrors: variant.collectErrors,
        junitXml: undefined,
      },
      durationMs: 0,
    };
    return mutantVerdictOf(run, testFile, owned);
  });
}

/** A mutant's verdict from a run of the node's tests against it, judged as the green gate judges a run. */
export function mutantVerdictOf(result: PytestResult, testFile: string, owned: readonly string[]): MutantVerdict {
  const route = greenGateRoute(result, testFile, owned);
  return route === "green" ? "survived" : route === "failing" ? "killed" : "error";
}
