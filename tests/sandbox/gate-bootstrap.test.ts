import { describe, it } from "vitest";
import { runPytest } from "../../src/sandbox/pytest.js";
import { makePackage, SANDBOXES } from "./package-dir.js";

// Test ids are the package's text: a parametrized test's id carries its parameter.
const HOSTILE_IDS = ["tests/test_p.py::test_p[$']", "tests/test_p.py::test_p[$`]", "tests/test_p.py::test_p[$&__COVER__]"];

describe.concurrent.each(SANDBOXES)("a test id with replacement patterns in the %s sandbox", (sandbox) => {
  it("reaches pytest as it was given", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_p.py": 'import pytest\n\n\n@pytest.mark.parametrize("p", ["$\'", "$`", "$&__COVER__"])\ndef test_p(p):\n    assert p\n',
      },
    );
    const result = await runPytest({ cwd, targets: HOSTILE_IDS, sandbox });
    expect(result.report.authentic && [...result.report.outcomes].sort()).toEqual(HOSTILE_IDS.map((id) => [id, "passed"]).sort());
  });
});
