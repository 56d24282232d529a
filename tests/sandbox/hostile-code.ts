import { randomUUID } from "node:crypto";
import { readdirSync, readlinkSync, realpathSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { TestContext } from "vitest";
import { runPytest, type SandboxKind } from "../../src/sandbox/pytest.js";
import { makePackage, SEND_OUT } from "./package-dir.js";

// The hostile packages of hostile.test.ts: Python that tries to get out of the sandbox.

export const SECRET_NAMES = ["GITHUB_TOKEN", "OPENAI_API_KEY", "MY_SECRET", "AWS_ACCESS_KEY_ID", "ACTIONS_RUNTIME_TOKEN"];
export const secrets = (): Record<string, string> =>
  Object.fromEntries(SECRET_NAMES.map((name) => [name, `rpg-forge-secret-${randomUUID()}`]));

/**
 * Reads its environment every way it can (its own, its parent's, every process it can
 * see in /proc) and sends out how many processes' environments it could read, which of
 * `values` it found, and its own variables' names. It reads /proc through cat, a child
 * the gate's guard does not watch (the guard ends the interpreter that opens another
 * process's /proc folder itself).
 */
export const dumpEnvironment = (values: readonly string[]): string => `import glob, os, subprocess

def test_dump_environment():
    seen = ["environ " + repr(sorted(os.environ.items()))]
    read = 0
    for path in ["/proc/%d/environ" % os.getppid(), "/proc/1/environ"] + sorted(glob.glob("/proc/[0-9]*/environ")):
        done = subprocess.run(["cat", path], capture_output=True)
        read += done.returncode == 0
        seen.append(path + " " + done.stdout.decode("utf-8", "replace"))
    text = "\\n".join(seen)
    wanted = ${JSON.stringify(values)}
    ${SEND_OUT}(read, [v for v in wanted if v in text], sorted(os.environ))
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
  "PYTHONSAFEPATH",
  "PYTHONNOUSERSITE",
  "RPG_FORGE_RUN",
];

/**
 * A child that outlives the test run if it can: it waits until the process that started
 * it (pytest) is gone, then past the time limit, then leaves a marker. Waiting for its
 * parent rather than for a fixed time keeps the test honest on a slow machine.
 */
const SLEEPER = `import os, sys, tempfile, time

def outlive_parent(name):
    parent = os.getppid()
    open(os.path.join(tempfile.gettempdir(), "started-" + name), "w").close()
    while os.getppid() == parent:
        time.sleep(0.02)
    time.sleep(30)

def wait_until_started(name):
    deadline = time.time() + 10
    while not os.path.exists(os.path.join(tempfile.gettempdir(), "started-" + name)) and time.time() < deadline:
        time.sleep(0.01)
    return os.path.exists(os.path.join(tempfile.gettempdir(), "started-" + name))

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
  return `\ndef test_${name}():\n${body}\n    ${SEND_OUT}("${name}", wait_until_started("${name}"))\n`;
}

/**
 * Runs tests that start `children` and returns which started (each test says so in its
 * failure message) and which are still alive once the run is over: a process of the
 * run is one whose working directory is the package.
 */
export async function runChildren(
  { onTestFinished }: TestContext,
  sandbox: SandboxKind,
  children: Child[],
): Promise<{ started: string[]; alive: number[] }> {
  const cwd = makePackage(
    { onTestFinished },
    {
      "sleeper.py": SLEEPER,
      "tests/test_children.py": `import os, subprocess, sys\nfrom sleeper import outlive_parent, wait_until_started\n${children.map(childTest).join("")}`,
    },
  );
  const result = await runPytest({ cwd, targets: ["tests/test_children.py"], sandbox, perTestTimeoutMs: 1000 });
  await sleep(500);
  const alive = processesIn(cwd);
  for (const pid of alive) process.kill(pid, "SIGKILL");
  const said = [...result.output.matchAll(/SENT<<(\[.*?\])>>SENT/g)].map((m) => JSON.parse(m[1]!) as [string, boolean]);
  const started = children.map((c) => c.name).filter((name) => said.some(([n, ok]) => n === name && ok));
  return { started, alive };
}

/** Host pids of the processes whose working directory is `dir`. */
export function processesIn(dir: string): number[] {
  const real = realpathSync(dir);
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === real;
      } catch {
        return false;
      }
    })
    .map(Number);
}
