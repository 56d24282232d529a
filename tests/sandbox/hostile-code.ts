import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
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

export const ALLOWED_KEYS = [
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
];

/**
 * A child that outlives the test run if it can: it waits until the process that started
 * it (pytest) is gone, then past the time limit, then leaves a marker. Waiting for its
 * parent rather than for a fixed time keeps the test honest on a slow machine.
 */
const SLEEPER = `import os, sys, tempfile, time

def outlive_parent(name):
    parent = os.getppid()
    with open(os.path.join(tempfile.gettempdir(), "started-" + name + ".part"), "w") as f:
        f.write(str(os.getpid()))
    os.rename(os.path.join(tempfile.gettempdir(), "started-" + name + ".part"), os.path.join(tempfile.gettempdir(), "started-" + name))
    while os.getppid() == parent:
        time.sleep(0.02)
    time.sleep(30)

def wait_until_started(name):
    # The child's process id once it has started, else 0.
    deadline = time.time() + 10
    while not os.path.exists(os.path.join(tempfile.gettempdir(), "started-" + name)) and time.time() < deadline:
        time.sleep(0.01)
    try:
        with open(os.path.join(tempfile.gettempdir(), "started-" + name)) as f:
            return int(f.read())
    except OSError:
        return 0

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
): Promise<{ started: string[]; alive: number[]; timedOut: boolean }> {
  const cwd = makePackage(
    { onTestFinished },
    {
      "sleeper.py": SLEEPER,
      "tests/test_children.py": `import os, subprocess, sys\nfrom sleeper import outlive_parent, wait_until_started\n${children.map(childTest).join("")}`,
    },
  );
  // A child that is a new interpreter took over a second to start on a loaded machine, and a 1 s limit a test then
  // ended the test before its child could say it had started. 3 s: the run's hard limit (ten tests' worth for a file,
  // and the start) stays under vitest's 60 s, so that a run that hangs is ended by the sandbox, not left to vitest.
  const result = await runPytest({ cwd, targets: ["tests/test_children.py"], sandbox, perTestTimeoutMs: 3000 });
  await sleep(500);
  const alive = processesIn(cwd);
  const said = [...result.output.matchAll(/SENT<<(\[.*?\])>>SENT/g)].map((m) => JSON.parse(m[1]!) as [string, number]);
  const started = children.map((c) => c.name).filter((name) => said.some(([n, pid]) => n === name && pid > 0));
  // A child forked from the gate cannot be read by another process (no /proc/<pid>/cwd): in process mode, where its id
  // is ours too, it is looked for by the id it gave. Inside bubblewrap's user namespace this process may read it.
  if (sandbox === "process") for (const [, pid] of said) if (pid > 0 && isRunning(pid) && !alive.includes(pid)) alive.push(pid);
  for (const pid of alive) process.kill(pid, "SIGKILL");
  return { started, alive, timedOut: result.timedOut };
}

/** Whether a process is there and not a zombie. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
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
