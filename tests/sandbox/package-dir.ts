import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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
 * A fresh temp dir (in `parent`, the system's temp folder by default), removed when `test` finishes. Cleanup hangs on the test's own context
 * rather than a shared afterEach because most of these tests run concurrently: a shared
 * list would let the first test to finish delete the others' directories.
 */
export function makeTempDir(test: Test, parent: string = tmpdir()): string {
  const dir = mkdtempSync(join(parent, "rpg-forge-test-"));
  test.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Package folders a finished test left, emptied, for the next test of this worker. A bubblewrap sandbox serves the
 * folder it mounted, so a test in a folder an earlier test used runs its gates in that test's sandbox, as the engine
 * runs a node's gates in the sandbox of the nodes before it (src/sandbox/pytest.ts): a fresh folder a test started a
 * launcher of its own, about 0.35 s of CPU each, 96 of them in signed-report.test.ts alone.
 */
const reusable: { path: string; ino: number }[] = [];
const pooled = new Set<string>();
let removedOnTerm = false;

/**
 * A generated package in an empty temp dir, fresh or one an earlier test used: `files` maps paths to content, e.g.
 * `{ "tests/test_stats.py": "def test_mean(): ..." }`. A pytest.ini comes with it.
 */
export function makePackage(test: Test, files: Record<string, string>): string {
  const root = reusedFolder() ?? pooledFolder();
  test.onTestFinished(() => release(root));
  for (const [path, content] of Object.entries({ "pytest.ini": PYTEST_INI, "rpg_forge_send_out.py": SEND_OUT_MODULE, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function pooledFolder(): string {
  const root = mkdtempSync(join(tmpdir(), "rpg-forge-test-"));
  pooled.add(root);
  if (!removedOnTerm) {
    removedOnTerm = true;
    // vitest ends its workers with SIGTERM, before any exit handler would run.
    process.once("SIGTERM", () => {
      for (const folder of pooled) rmSync(folder, { recursive: true, force: true });
      process.kill(process.pid, "SIGTERM");
    });
  }
  return root;
}

/** A folder a finished test left, if it is still the folder it was (in process mode the tests could swap it for a link). */
function reusedFolder(): string | undefined {
  for (let next = reusable.pop(); next !== undefined; next = reusable.pop()) {
    const info = lstatSync(next.path, { throwIfNoEntry: false });
    if (info?.isDirectory() && info.ino === next.ino && readdirSync(next.path).length === 0) return next.path;
    forget(next.path);
  }
  return undefined;
}

function release(root: string): void {
  const info = lstatSync(root, { throwIfNoEntry: false });
  if (!info?.isDirectory() || (info.mode & 0o777) !== 0o700) return forget(root);
  try {
    for (const name of readdirSync(root)) rmSync(join(root, name), { recursive: true, force: true });
    reusable.push({ path: root, ino: info.ino });
  } catch {
    forget(root);
  }
}

function forget(root: string): void {
  pooled.delete(root);
  try {
    rmSync(root, { recursive: true, force: true });
  } catch {
    // A tree a test made too deep to remove by path: a leftover in the temp folder, not a failed test.
  }
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
