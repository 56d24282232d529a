import { secretRedactor } from "../redact.js";
import type { TestCaseResult } from "./junit.js";

/** The parts of a test run (PytestResult) that generated code writes. */
interface TestRunText {
  output: string;
  tests: TestCaseResult[];
  junitXml: string | undefined;
  /** The signed report, whose copy of the JUnit XML is generated code's text too. */
  report?: object;
}

/**
 * A test run as it may leave the sandbox: pytest's output, the JUnit report and every
 * test's name, message and details without secrets. Generated code can find a secret
 * (in a file it may read, or in /proc/<parent>/environ with the process sandbox) and
 * print it; from here the text goes into prompts, artifacts, the checkpoint, the report
 * and PR comments, so it is cleaned once, where the result is built. Test ids and
 * outcomes are left as they are: they are keys the gates match on.
 */
export function redactPytestResult<T extends TestRunText>(result: T, env: NodeJS.ProcessEnv = process.env): T {
  const redact = secretRedactor(env);
  const tests = result.tests.map((t) => ({
    ...t,
    name: redact(t.name),
    ...(t.message !== undefined ? { message: redact(t.message) } : {}),
    ...(t.details !== undefined ? { details: redact(t.details) } : {}),
  }));
  const redacted = {
    ...result,
    output: redact(result.output),
    junitXml: result.junitXml === undefined ? undefined : redact(result.junitXml),
    tests,
  };
  const report = result.report;
  if (report && "junitXml" in report && typeof report.junitXml === "string") {
    Object.assign(redacted, { report: { ...report, junitXml: redact(report.junitXml) } });
  }
  return redacted;
}
