import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "vitest";
import { runPytest } from "../../src/sandbox/pytest.js";
import { makePackage, makeTempDir, SANDBOXES, SEND_OUT, sentOut } from "./package-dir.js";

// Concurrent: most of these wait on time limits. The hard limit is tested in hostile.test.ts.

const HOST_USER_SITE_PATH = JSON.parse(
  execFileSync(
    "python3",
    [
      "-c",
      "import json, site, sys; print(json.dumps([p for p in sys.path if site.ENABLE_USER_SITE and p.startswith(site.getuserbase())]))",
    ],
    {
      encoding: "utf8",
    },
  ),
) as string[];

describe.concurrent.each(SANDBOXES)("runPytest limits in the %s sandbox", (sandbox) => {
  it("fails a spinning and a sleeping test with the timeout message and still runs the others", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_hang.py": `import time

def test_spins():
    while True:
        pass

def test_sleeps():
    time.sleep(100)

def test_quick():
    assert True
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_hang.py"], sandbox, perTestTimeoutMs: 1000 });
    expect(result).toMatchObject({ exitCode: 1, timedOut: false });
    expect(result.tests.map((t) => [t.name, t.status, t.message])).toEqual([
      ["test_spins", "failed", "Failed: timed out after 1 s"],
      ["test_sleeps", "failed", "Failed: timed out after 1 s"],
      ["test_quick", "passed", undefined],
    ]);
    // The traceback shows where the test was stuck, not our plugin.
    expect(result.tests[1]!.details).toContain("time.sleep(100)");
    expect(result.tests[1]!.details).not.toContain("rpg_forge_timeout");
    expect(result.durationMs).toBeLessThan(10_000);
  });

  it("applies the limit to a hanging fixture too", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_fixture.py": `import time
import pytest

@pytest.fixture
def slow():
    time.sleep(100)

def test_uses_slow(slow):
    pass
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_fixture.py::test_uses_slow"], sandbox, perTestTimeoutMs: 1000 });
    expect(result.tests).toEqual([
      expect.objectContaining({ status: "error", message: expect.stringContaining("timed out after 1 s (in setup)") }),
    ]);
  });

  it("kills the whole run when aborted and reports exit code -1", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_wait.py": `import time

def test_waits():
    time.sleep(100)
`,
      },
    );
    const controller = new AbortController();
    const running = runPytest({ cwd, targets: ["tests/test_wait.py::test_waits"], sandbox, signal: controller.signal });
    // The package is read-only in bwrap, so the test cannot say when it started: by then it has.
    await sleep(2_000);
    const abortedAt = Date.now();
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ exitCode: -1, timedOut: false, tests: [], junitXml: undefined });
    expect(Date.now() - abortedAt).toBeLessThan(3_000);
  });

  it("gives the tests their own HOME and TMPDIR and empties them afterwards", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_dirs.py": `import os, tempfile

def test_dirs(tmp_path):
    with open(os.path.join(os.environ["HOME"], "note"), "w") as f:
        f.write("home is writable")
    (tmp_path / "note").write_text("tmp_path is writable")
    ${SEND_OUT}(os.environ["HOME"], tempfile.gettempdir())
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_dirs.py"], sandbox });
    const [home, tmp] = sentOut(result) as string[];
    expect(home).not.toBe(process.env.HOME);
    expect(tmp).not.toBe(home);
    // Kept for the launcher's next gate (decision 0031), with nothing the tests wrote in them.
    expect([readdirSync(home!), readdirSync(tmp!)]).toEqual([[], []]);
  });
  it("keeps packages installed with pip --user importable, with the user site off", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_site.py": `import site, sys

def test_user_site():
    ${SEND_OUT}(site.ENABLE_USER_SITE, [p for p in sys.path if p.startswith(site.getuserbase())])
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_site.py"], sandbox });
    // The user site is off (a .pth planted there never runs), but what is installed there stays importable as plain folders.
    expect(sentOut(result)).toEqual([false, HOST_USER_SITE_PATH]);
  });
});

describe.concurrent("runPytest", () => {
  it("keeps the start and the end of very long output, cut in between, without terminal escapes", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_loud.py": `def test_loud():
    print("\\x1b[31mred\\x1b[0m start")
    for i in range(20000):
        print("line %d of noise" % i)
    assert False, "the end"
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_loud.py"], sandbox: "process" });
    expect(result.exitCode).toBe(1);
    expect(result.output.length).toBeLessThan(110_000);
    expect(result.output).toMatch(/\[\.\.\. \d+ characters of output cut here \.\.\.\]/);
    expect(result.output).toContain("red start");
    expect(result.output).not.toContain("\x1b");
    expect(result.output).toContain("FAILED tests/test_loud.py::test_loud - AssertionError: the end");
  });

  it("throws SANDBOX_CWD_INVALID for a relative or missing package directory", async ({ expect, onTestFinished }) => {
    await expect(runPytest({ cwd: "relative/pkg", targets: [], sandbox: "process" })).rejects.toMatchObject({
      code: "SANDBOX_CWD_INVALID",
    });
    const missing = join(makeTempDir({ onTestFinished }), "missing");
    await expect(runPytest({ cwd: missing, targets: [], sandbox: "process" })).rejects.toMatchObject({
      code: "SANDBOX_CWD_INVALID",
      at: { file: missing },
    });
  });
});
