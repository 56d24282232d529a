import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "vitest";
import type { SandboxKind } from "../../src/sandbox/pytest.js";

/** Both sandboxes, for `describe.each`. */
export const SANDBOXES: SandboxKind[] = ["bwrap", "process"];

// pytest loads every installed plugin on each run; hypothesis alone takes about a second
// here. The packages in these tests never use them, and the suite runs pytest dozens of times.
// The interpreter does not put the working directory on sys.path (PYTHONSAFEPATH), so the ini does, as a generated package's does.
const PYTEST_INI = "[pytest]\npythonpath = .\naddopts = -p no:hypothesispytest -p no:benchmark\n";

type Test = Pick<TestContext, "onTestFinished">;

/**
 * A fresh temp dir, removed when `test` finishes. Cleanup hangs on the test's own context
 * rather than a shared afterEach because most of these tests run concurrently: a shared
 * list would let the first test to finish delete the others' directories.
 */
export function makeTempDir(test: Test): string {
  const dir = mkdtempSync(join(tmpdir(), "rpg-forge-test-"));
  test.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A generated package in a fresh temp dir: `files` maps paths to content, e.g.
 * `{ "tests/test_stats.py": "def test_mean(): ..." }`. A pytest.ini comes with it.
 */
export function makePackage(test: Test, files: Record<string, string>): string {
  const root = makeTempDir(test);
  for (const [path, content] of Object.entries({ "pytest.ini": PYTEST_INI, "rpg_forge_send_out.py": SEND_OUT_MODULE, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/**
 * The package is read-only in bwrap, so a test that reports what it saw sends it out in
 * its failure message: `${SEND_OUT}(value, ...)` in Python, `sentOut(result)` here.
 */
export const SEND_OUT = "__import__('rpg_forge_send_out').send";
const SEND_OUT_MODULE = `import json

def send(*values):
    raise AssertionError("SENT<<" + json.dumps(values) + ">>SENT")
`;

/** The values the package's test sent out with SEND_OUT. */
export function sentOut(result: { output: string }): unknown {
  const match = /SENT<<(\[.*?\])>>SENT/.exec(result.output);
  if (!match) throw new Error(`nothing was sent out; the output was:\n${result.output}`);
  return JSON.parse(match[1]!) as unknown;
}
