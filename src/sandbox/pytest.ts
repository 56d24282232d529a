import { constants } from "node:fs";
import { mkdir, mkdtemp, open, realpath, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { RpgForgeError } from "../errors.js";
import { bwrapArgs, findBwrap, probeBwrap } from "./bwrap.js";
import { scrubbedEnv } from "./env.js";
import { parseJUnitXml, type TestCaseResult } from "./junit.js";
import { runInOwnGroup, type GroupExit } from "./process-group.js";
import { findPythonSetup } from "./python.js";
import { removeTree } from "./remove-tree.js";
import { TIMEOUT_PLUGIN_MODULE, timeoutPluginSource } from "./timeout-plugin.js";

export type { TestCaseResult } from "./junit.js";

/**
 * Where generated tests run:
 * - "bwrap": a bubblewrap sandbox. Only the package directory is writable (minus .git and
 *   .github), there is no network, the parent's processes and environment are invisible,
 *   and everything the tests start dies with the sandbox. The rest of the file system is
 *   visible read-only, so files the user can read (~/.ssh, tokens in config files) can
 *   still be read and printed into the output.
 * - "process": a plain child process with a scrubbed environment, in its own process
 *   group. It guarantees only that: no secrets in the environment it is given, the time
 *   limits, and that everything left in the process group is killed when pytest exits.
 *   It cannot stop generated code from writing anywhere the user can (outside the
 *   package, .git, .github), from using the network, from escaping the group with
 *   setsid() and outliving the run, or from reading our own environment through
 *   /proc/<parent pid>/environ. That is why bwrap is preferred whenever it works.
 */
export type SandboxKind = "bwrap" | "process";

export interface PytestRun {
  /** Absolute path of the generated package (repository root of the output). */
  cwd: string;
  /** pytest node ids relative to cwd (`tests/test_stats.py::test_mean_basic`), or files. Passed to pytest as given. */
  targets: string[];
  sandbox: SandboxKind;
  /** Time limit per test phase (setup, call, teardown); default 30 000. */
  perTestTimeoutMs?: number;
  /** Paths relative to cwd that stay read-only (bwrap only); default [".git", ".github"], those that exist. */
  readOnly?: string[];
  /** Aborting kills the whole process group or sandbox. */
  signal?: AbortSignal;
  /**
   * When given, installed pytest plugins are not auto-loaded; only these entry points
   * are (`-p name`). Auto-loading costs a second a run where heavy plugins such as
   * hypothesis are installed, and a generated package should not lean on plugins it
   * does not declare. Undefined keeps pytest's own auto-loading.
   */
  plugins?: readonly string[];
}

export interface PytestResult {
  /** pytest's own exit code (0 passed, 1 failed, 2 interrupted, 3 internal error, 4 usage error, 5 no tests); -1 when we killed it. */
  exitCode: number;
  /** True when the hard time limit killed it. */
  timedOut: boolean;
  /** stdout and stderr, head and tail kept when long, terminal controls removed. */
  output: string;
  /** From the JUnit XML; empty when pytest wrote none (killed, or it could not start). */
  tests: TestCaseResult[];
  junitXml: string | undefined;
  durationMs: number;
}

const DEFAULT_PER_TEST_MS = 30_000;
// Interpreter start, imports and collection before the first test runs.
const STARTUP_GRACE_MS = 15_000;
// A target naming a file or directory rather than one test is budgeted as this many tests.
const TESTS_PER_FILE_TARGET = 10;
const DEFAULT_READ_ONLY = [".git", ".github"];
// The tests can write to the report file too (its path is on pytest's command line).
const MAX_REPORT_BYTES = 16 * 1024 * 1024;

/**
 * Runs pytest on generated (untrusted) code and reports what happened. Failing tests,
 * time-outs and crashes are results; it throws only when tests cannot be run at all
 * (no Python, no bwrap when asked for, a bad cwd, a sandbox that will not start).
 */
export async function runPytest(run: PytestRun): Promise<PytestResult> {
  const started = Date.now();
  const perTestMs = run.perTestTimeoutMs ?? DEFAULT_PER_TEST_MS;
  if (!(perTestMs > 0 && Number.isFinite(perTestMs))) throw new RangeError(`perTestTimeoutMs must be positive, got ${perTestMs}`);
  const cwd = await packageDirectory(run.cwd);
  const { executable: python, userBase } = await findPythonSetup();
  const bwrap = run.sandbox === "bwrap" ? await requireBwrap() : undefined;
  if (run.signal?.aborted) return { exitCode: -1, timedOut: false, output: "", tests: [], junitXml: undefined, durationMs: 0 };

  // Private to this run: HOME and TMPDIR for the tests, the plugin, the report. Removed afterwards.
  const privateDir = await mkdtemp(join(tmpdir(), "rpg-forge-pytest-"));
  try {
    const dirs = { home: join(privateDir, "home"), tmp: join(privateDir, "tmp"), plugin: join(privateDir, "plugin") };
    for (const dir of Object.values(dirs)) await mkdir(dir, { mode: 0o700 });
    await writeFile(join(dirs.plugin, `${TIMEOUT_PLUGIN_MODULE}.py`), timeoutPluginSource(perTestMs));
    const junitPath = join(privateDir, "junit.xml");
    const env: Record<string, string> = { ...scrubbedEnv(process.env, dirs.home, dirs.tmp), PYTHONPATH: dirs.plugin };
    if (run.plugins) env.PYTEST_DISABLE_PLUGIN_AUTOLOAD = "1";
    if (userBase) env.PYTHONUSERBASE = userBase;
    const pytestArgs = [
      ...["-m", "pytest", ...run.targets, "-q", "-p", "no:cacheprovider", "-p", TIMEOUT_PLUGIN_MODULE],
      ...[`--junitxml=${junitPath}`, "-o", "junit_family=xunit2", "--color=no"],
      ...(run.plugins ?? []).flatMap((plugin) => ["-p", plugin]),
    ];
    const common = { cwd, env, hardLimitMs: hardLimitMs(run.targets, perTestMs), ...(run.signal ? { signal: run.signal } : {}) };
    const command = bwrap
      ? {
          command: bwrap,
          args: [
            ...bwrapArgs({ cwd, readOnly: await existing(cwd, run.readOnly), privateDir, pluginDir: dirs.plugin, env }),
            python,
            ...pytestArgs,
          ],
          statusFd: true,
        }
      : { command: python, args: pytestArgs };
    let exit: GroupExit;
    try {
      // bwrap itself gets the scrubbed env too: code in the sandbox can read its reaper's /proc/1/environ.
      exit = await runInOwnGroup({ ...common, ...command });
    } catch (error) {
      throw new RpgForgeError("SANDBOX_START_FAILED", `could not start ${bwrap ?? python}: ${(error as Error).message}`, {}, undefined, {
        cause: error,
      });
    }
    if (bwrap && exit.killedBy === undefined && !exit.status.includes('"exit-code"')) {
      throw new RpgForgeError(
        "SANDBOX_START_FAILED",
        `bubblewrap could not set up the sandbox: ${exit.output.trim().split("\n").at(-1) ?? "no message"}`,
        { file: cwd },
        "bwrap passed its probe but failed on this run's mounts: check the path in the message, or choose the process sandbox",
      );
    }
    const junitXml = await readReport(junitPath);
    return {
      exitCode: exit.killedBy ? -1 : exit.code,
      timedOut: exit.killedBy === "time-limit",
      output: exit.output,
      tests: junitXml ? parseJUnitXml(junitXml) : [],
      junitXml,
      durationMs: Date.now() - started,
    };
  } finally {
    await removeTree(privateDir);
  }
}

/**
 * Chooses the sandbox: "bwrap" when requested or available and it actually works, else
 * "process" with a one-line warning for the caller to print. An explicit "bwrap" request
 * when bwrap is unusable throws RpgForgeError SANDBOX_BWRAP_UNAVAILABLE.
 */
export async function chooseSandbox(requested?: SandboxKind): Promise<{ kind: SandboxKind; warning?: string }> {
  if (requested === "process") return { kind: "process" };
  const probe = await probeBwrap();
  if (probe.usable) return { kind: "bwrap" };
  if (requested === "bwrap") throw bwrapUnavailable(probe.reason);
  return {
    kind: "process",
    warning: `${probe.reason}; running generated tests without a sandbox (they can write outside the package and use the network)`,
  };
}

async function requireBwrap(): Promise<string> {
  const path = await findBwrap();
  if (!path) throw bwrapUnavailable("bwrap (bubblewrap) is not on PATH");
  return path;
}

function bwrapUnavailable(reason: string): RpgForgeError {
  return new RpgForgeError(
    "SANDBOX_BWRAP_UNAVAILABLE",
    reason,
    {},
    "install bubblewrap (`apt-get install bubblewrap`) and allow unprivileged user namespaces, or choose the process sandbox",
  );
}

/** Number of tests the targets stand for × the per-test limit, plus startup. */
function hardLimitMs(targets: string[], perTestMs: number): number {
  // No targets: pytest collects the whole package.
  const tests =
    targets.length === 0 ? TESTS_PER_FILE_TARGET : targets.reduce((n, t) => n + (t.includes("::") ? 1 : TESTS_PER_FILE_TARGET), 0);
  return tests * perTestMs + STARTUP_GRACE_MS;
}

async function packageDirectory(cwd: string): Promise<string> {
  const invalid = (why: string, cause?: unknown): RpgForgeError =>
    new RpgForgeError("SANDBOX_CWD_INVALID", `the package directory ${why}`, { file: cwd }, undefined, cause ? { cause } : undefined);
  if (!isAbsolute(cwd)) throw invalid("must be an absolute path");
  try {
    // bwrap binds real paths; a symlinked cwd would be mounted at a different place than it is entered.
    const real = await realpath(cwd);
    if (!(await stat(real)).isDirectory()) throw invalid("is not a directory");
    return real;
  } catch (error) {
    if (error instanceof RpgForgeError) throw error;
    throw invalid("does not exist", error);
  }
}

async function existing(cwd: string, readOnly = DEFAULT_READ_ONLY): Promise<string[]> {
  const found: string[] = [];
  for (const path of readOnly.map((p) => resolve(cwd, p))) {
    if (await stat(path).catch(() => undefined)) found.push(path);
  }
  return found;
}

/** The JUnit report, or undefined when pytest wrote none; a huge one is cut and parsed as far as it goes. */
async function readReport(path: string): Promise<string | undefined> {
  // No following a symlink the tests may have put in the report's place.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(Math.min((await handle.stat()).size, MAX_REPORT_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
