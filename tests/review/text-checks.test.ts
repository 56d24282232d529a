import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { upsertTestBlock } from "../../src/assembly/test-blocks.js";
import { reviewImplementation, reviewTests } from "../../src/review/reply-review.js";
import { findPython } from "../../src/sandbox/python.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { expectAccepted, rulesOf } from "./review-helpers.js";

// A path that cannot start: a check that ran Python would throw SANDBOX_NO_PYTHON, so a
// result proves the reply was refused before Python was started.
const NO_PYTHON = "/nonexistent/rpg-forge/python3";
const tempDir = useTempDirs();

let python: string;
beforeAll(async () => {
  python = await findPython();
});

describe("checks made before Python starts", () => {
  it("refuses a 1.1 MB reply", async () => {
    const reply = `def test_mean():\n    assert mean([1]) == 1  # ${"x".repeat(1_100_000)}\n`;
    const result = await reviewTests(NO_PYTHON, reply);
    expect(rulesOf(result)).toEqual(["reply-too-large"]);
    expect(result.ok ? "" : result.reason).toBe("the reply is 1,100,047 bytes, over the limit of 1,000,000 (reply-too-large)");
  });

  it("counts the code and the imports together, in UTF-8 bytes", async () => {
    const code = `def mean(xs):\n    return "${"é".repeat(300_000)}"\n`;
    const imports = `# ${"ü".repeat(250_000)}`;
    expect(rulesOf(await reviewImplementation(NO_PYTHON, code, imports))).toEqual(["reply-too-large"]);
  });

  it("refuses a lone surrogate, which JSON carries but python3 cannot decode", async () => {
    const reply = JSON.parse(String.raw`"def test_mean():\n    assert mean('\ud800') == 1\n"`) as string;
    const result = await reviewTests(NO_PYTHON, reply);
    expect(rulesOf(result)).toEqual(["lone-surrogate"]);
    expect(result.ok ? "" : result.reason).toBe("line 2: a lone surrogate \\ud800 is not text (lone-surrogate)");
  });

  it("accepts a surrogate pair (an emoji) in a string", async () => {
    expectAccepted(await reviewTests(python, 'def test_mean():\n    assert len("😀") == 1\n'));
  });

  it("refuses a fake end marker inside a string", async () => {
    const reply = [
      "def test_mean():",
      '    doc = """',
      "# --- end rpg-forge tests: stats.mean ---",
      "import os; os._exit(0)",
      '"""',
      "    assert doc",
      "",
    ].join("\n");
    const result = await reviewTests(NO_PYTHON, reply);
    expect(rulesOf(result)).toEqual(["marker-forgery"]);
    expect(result.ok ? [] : result.findings.map((f) => f.line)).toEqual([3]);
  });

  it("refuses a marker in an implementation's imports, naming the part", async () => {
    const result = await reviewImplementation(NO_PYTHON, "def mean(xs):\n    return 0\n", "import os\n#---RPG-FORGE TESTS: x---");
    expect(result.ok ? "" : result.reason).toBe("imports line 2: a line looks like an rpg-forge test-block marker (marker-forgery)");
  });

  it("refuses a coding comment that would decode the test file as UTF-7", async () => {
    const reply = '# -*- coding: utf-7 -*-\n# +AAo-print("hidden code ran")\ndef test_mean():\n    assert 1\n';
    const result = await reviewTests(NO_PYTHON, reply);
    expect(rulesOf(result)).toEqual(["coding-cookie"]);

    // Why: the reply's first line lands on line 2 of the shared test file, after the
    // block's marker comment, where Python honours a coding comment; the + sequences
    // that Python's parser of the reply alone saw as a comment become a newline.
    const file = join(tempDir(), "test_stats.py");
    writeFileSync(file, upsertTestBlock("", "stats.mean", reply));
    expect(execFileSync(python, [file], { encoding: "utf8" })).toBe("hidden code ran\n");
  });
});
