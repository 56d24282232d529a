import { describe, expect, it } from "vitest";
import { parseJUnitXml } from "../../src/sandbox/junit.js";

// Shaped like pytest 9's --junitxml with -o junit_family=xunit2 and our node id property.
const prop = (id: string): string => `<properties><property name="rpg_forge_nodeid" value="${id}" /></properties>`;
const REPORT = `<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="5">
<testcase classname="tests.test_stats" name="test_mean" time="0.012">${prop("tests/test_stats.py::test_mean")}</testcase>
<testcase classname="tests.test_stats" name="test_median" time="0.5">${prop("tests/test_stats.py::test_median")}<failure message="AssertionError: median of &lt;[]&gt; &amp; &quot;x&quot;&#10;assert 1 == 2">&gt;   assert median([]) == 2
E   AssertionError</failure></testcase>
<testcase classname="tests.test_stats.TestMode" name="test_mode[a.b-1]" time="0.000">${prop("tests/test_stats.py::TestMode::test_mode[a.b-1]")}<skipped type="pytest.skip" message="not yet">tests/test_stats.py:9: not yet</skipped></testcase>
<testcase classname="tests.test_stats" name="test_spread" time="0.001">${prop("tests/test_stats.py::test_spread")}<error message="failed on setup with &quot;RuntimeError: fixture broke&quot;"><![CDATA[raise RuntimeError("<fixture>")]]></error></testcase>
<!-- a comment <testcase name="ignored"/> -->
<testcase classname="" name="tests.test_broken" time="0.000"><error message="collection failure">SyntaxError: invalid syntax</error></testcase>
</testsuite></testsuites>`;

describe("parseJUnitXml", () => {
  it("reads every test case with its node id, name, status, message, details and duration", () => {
    expect(parseJUnitXml(REPORT)).toEqual([
      { id: "tests/test_stats.py::test_mean", name: "test_mean", status: "passed", durationMs: 12 },
      {
        id: "tests/test_stats.py::test_median",
        name: "test_median",
        status: "failed",
        message: 'AssertionError: median of <[]> & "x"\nassert 1 == 2',
        details: ">   assert median([]) == 2\nE   AssertionError",
        durationMs: 500,
      },
      {
        id: "tests/test_stats.py::TestMode::test_mode[a.b-1]",
        name: "test_mode[a.b-1]",
        status: "skipped",
        message: "not yet",
        details: "tests/test_stats.py:9: not yet",
        durationMs: 0,
      },
      {
        id: "tests/test_stats.py::test_spread",
        name: "test_spread",
        status: "error",
        message: 'failed on setup with "RuntimeError: fixture broke"',
        details: 'raise RuntimeError("<fixture>")',
        durationMs: 1,
      },
      {
        id: "tests/test_broken.py",
        name: "tests.test_broken",
        status: "error",
        message: "collection failure",
        details: "SyntaxError: invalid syntax",
        durationMs: 0,
      },
    ]);
  });

  it("rebuilds the node id from classname when our property is missing", () => {
    const [test] = parseJUnitXml(`<testsuite><testcase classname="tests.test_io" name="test_read" time="x"/></testsuite>`);
    expect(test).toEqual({ id: "tests/test_io.py::test_read", name: "test_read", status: "passed", durationMs: 0 });
  });

  it("counts a test that fails and then errors in teardown as failed, keeping both tracebacks", () => {
    const [test] = parseJUnitXml(
      `<testcase classname="t" name="x"><failure message="boom">call trace</failure><error message="teardown">teardown trace</error></testcase>`,
    );
    expect(test).toMatchObject({ status: "failed", message: "boom", details: "call trace\n\nteardown trace" });
  });

  it("returns the test cases it could read from a report cut off mid-write", () => {
    const cut = REPORT.slice(0, REPORT.indexOf("not yet") + 3);
    expect(parseJUnitXml(cut).map((t) => [t.name, t.status])).toEqual([
      ["test_mean", "passed"],
      ["test_median", "failed"],
      ["test_mode[a.b-1]", "skipped"],
    ]);
  });

  it("returns nothing for text that is not a report", () => {
    expect(parseJUnitXml("")).toEqual([]);
    expect(parseJUnitXml("Traceback (most recent call last): a < b")).toEqual([]);
  });
});
