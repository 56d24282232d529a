import { describe, expect, it } from "vitest";
import { redactPytestResult } from "../../src/sandbox/redact-result.js";

const env = { RPG_FORGE_TEST_TOKEN: "s3cret&value-42" };
const xml = (value: string) =>
  `<testsuite><testcase classname="tests.test_x" name="test_x"><failure message="ValueError: ${value}">raise ValueError(${value})</failure></testcase></testsuite>`;

describe("redactPytestResult", () => {
  it("removes a printed secret from the output, the JUnit XML (escaped there) and every test's name, message and details", () => {
    const result = {
      exitCode: 1,
      timedOut: false,
      output: "stolen: s3cret&value-42\n",
      tests: [
        {
          id: "tests/test_x.py::test_x",
          name: "test_x[s3cret&value-42]",
          status: "failed" as const,
          message: "ValueError: s3cret&value-42",
          details: "raise ValueError(s3cret&value-42)",
          durationMs: 3,
        },
      ],
      junitXml: xml("s3cret&amp;value-42"),
      report: {
        authentic: true,
        exitStatus: 1,
        outcomes: new Map([["tests/test_x.py::test_x", "failed"]]),
        junitXml: xml("s3cret&amp;value-42"),
      },
      durationMs: 10,
    };
    const redacted = redactPytestResult(result, env);
    expect(JSON.stringify({ ...redacted, report: { ...redacted.report, outcomes: [...redacted.report.outcomes] } })).not.toContain(
      "s3cret",
    );
    expect(redacted.output).toBe("stolen: [redacted RPG_FORGE_TEST_TOKEN]\n");
    expect(redacted.tests[0]).toMatchObject({ id: "tests/test_x.py::test_x", message: "ValueError: [redacted RPG_FORGE_TEST_TOKEN]" });
    expect(redacted.junitXml).toBe(xml("[redacted RPG_FORGE_TEST_TOKEN]"));
    // Ids and outcomes are what the gates match on: left as they are.
    expect(redacted.report.outcomes).toBe(result.report.outcomes);
  });
});
