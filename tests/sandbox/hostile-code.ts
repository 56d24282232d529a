import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { TestContext } from "vitest";
import { runPytest, type SandboxKind } from "../../src/sandbox/pytest.js";
import { makePackage } from "./package-dir.js";

// The hostile packages of hostile.test.ts: Python that tries to get out of the sandbox.

export const SECRET_NAMES = ["GITHUB_TOKEN", "OPENAI_API_KEY", "MY_SECRET", "AWS_ACCESS_KEY_ID", "ACTIONS_RUNTIME_TOKEN"];
export const secrets = (): Record<string, string> =>
  Object.fromEntries(SECRET_NAMES.map((name) => [name, `rpg-forge-secret-${randomUUID()}`]));

/** Reads its environment every way it can: its own, its parent's, and every process it can see in /proc. */
export const DUMP_ENVIRONMENT = `import glob, os

def test_dump_environment():
    seen = ["environ " + repr(sorted(os.environ.items()))]
    for path in ["/proc/%d/environ" % os.getppid(), "/proc/1/environ"] + sorted(glob.glob("/proc/[0-9]*/environ")):
        try:
            with open(path, "rb") as f:
                seen.append(path + " " + f.read().decode("utf-8", "replace"))
        except OSError as e:
            seen.append(path + " " + type(e).__name__)
    with open("seen.txt", "w") as f:
        f.write("\\n".join(seen))
    with open("keys.txt", "w") as f:
        f.write("\\n".join(sorted(os.environ)))
`;

// bwrap sets PWD when it changes into the package.
export const ALLOWED_KEYS = [
  "PWD",
  "PATH",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "HOME",
  "TMPDIR",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONHASHSEED",
  "PYTHONUTF8",
  "PYTHONPATH",
  "PYTHONUSERBASE",
];

/**
 * A child that outlives the test run if it can: it waits until the process that started
 * it (pytest) is gone, then past the time limit, then leaves a marker. Waiting for its
 * parent rather than for a fixed time keeps the test honest on a slow machine.
 */
const SLEEPER = `import os, sys, time

def outlive_parent(name):
    parent = os.getppid()
    open("started-" + name, "w").close()
    while os.getppid() == parent:
        time.sleep(0.02)
    time.sleep(1.5)
    open("marker-" + name, "w").close()

def wait_until_started(name):
    deadline = time.time() + 10
    while not os.path.exists("started-" + name) and time.time() < deadline:
        time.sleep(0.01)

if __name__ == "__main__":
    outlive_parent(sys.argv[1])
`;

export interface Child {
  name: string;
  start: "fork" | "popen";
  /** Leaves the process group: os.setsid() after fork, start_new_session for Popen. */
  newSession: boolean;
}

function childTest({ name, start, newSession }: Child): string {
  const body =
    start === "fork"
      ? `    if os.fork() == 0:\n        try:\n            ${newSession ? "os.setsid()\n            " : ""}outlive_parent("${name}")\n        finally:\n            os._exit(0)`
      : `    subprocess.Popen([sys.executable, "sleeper.py", "${name}"], start_new_session=${newSession ? "True" : "False"})`;
  return `\ndef test_${name}():\n${body}\n    wait_until_started("${name}")\n`;
}

/** Runs tests that start `children`, waits past their sleep, and returns which started and which left a marker. */
export async function runChildren(
  { expect, onTestFinished }: TestContext,
  sandbox: SandboxKind,
  children: Child[],
): Promise<{ started: string[]; markers: string[] }> {
  const cwd = makePackage(
    { onTestFinished },
    {
      "sleeper.py": SLEEPER,
      "tests/test_children.py": `import os, subprocess, sys\nfrom sleeper import outlive_parent, wait_until_started\n${children.map(childTest).join("")}`,
    },
  );
  const result = await runPytest({ cwd, targets: ["tests/test_children.py"], sandbox, perTestTimeoutMs: 1000 });
  expect(result.exitCode).toBe(0);
  await sleep(2_500);
  const names = children.map((c) => c.name);
  return {
    started: names.filter((n) => existsSync(join(cwd, `started-${n}`))),
    markers: names.filter((n) => existsSync(join(cwd, `marker-${n}`))),
  };
}
