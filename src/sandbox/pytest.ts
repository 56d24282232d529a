import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { RpgForgeError } from "../errors.js";
import { bwrapArgs, findBwrap, HIDDEN_DIRS, probeBwrap } from "./bwrap.js";
import { scrubbedEnv } from "./env.js";
import { gateBootstrapSource, MAX_SIGNED_REPORT_BYTES } from "./gate-bootstrap.js";
import { parseJUnitXml, type TestCaseResult } from "./junit.js";
import { resolveLimits, rlimitPairs, type ResourceLimits } from "./limits.js";
import { RUN_MARK_VARIABLE } from "./marked-processes.js";
import { runInOwnGroup, type GroupExit } from "./process-group.js";
import { findPythonSetup, type PythonSetup } from "./python.js";
import { removeTree } from "./remove-tree.js";
import { newReportKey, verifySignedReport, type SignedReport } from "./signed-report.js";
import { timeoutPluginSource } from "./timeout-plugin.js";

export type { TestCaseResult } from "./junit.js";

/**
 * Where generated tests run (docs/security.md says what each guarantees):
 * - "bwrap": a bubblewrap sandbox. The package is read-only, the only writable places are
 *   a private HOME and TMPDIR; there is no network; home directories, /opt and /run are
 *   hidden; the parent's processes and environment are invisible; and everything the
 *   tests start dies with the sandbox.
 * - "process": a plain child process with a scrubbed environment, in its own process
 *   group, with the resource limits and the user site off. It cannot stop generated code
 *   from writing anywhere the user can (the engine then finds the change and fails the
 *   node, see PackageFiles.verify), from using the network, from escaping the group with
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
  /** Resource limits of the interpreter and what it starts; the defaults where not given. */
  limits?: Partial<ResourceLimits>;
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
  /** From the signed JUnit report; empty when there is none (killed, cut short, or tampered with). */
  tests: TestCaseResult[];
  junitXml: string | undefined;
  /** What rpg-forge's own plugin recorded, signed: the only evidence a gate accepts. */
  report: SignedReport;
  durationMs: number;
}

const DEFAULT_PER_TEST_MS = 30_000;
// Interpreter start, imports and collection before the first test runs.
const STARTUP_GRACE_MS = 15_000;
// A target naming a file or directory rather than one test is budgeted as this many tests.
const TESTS_PER_FILE_TARGET = 10;

/**
 * Runs pytest on generated (untrusted) code and reports what happened. Failing tests,
 * time-outs and crashes are results; it throws only when tests cannot be run at all
 * (no Python, no bwrap when asked for, a bad cwd, a sandbox that will not start).
 */
export function runPytest(run: PytestRun): Promise<PytestResult> {
  return runGate(run, {});
}

/** What a run other than a gate's changes (src/sandbox/coverage.ts): its outcomes then decide nothing. */
export interface GateVariant {
  /** The interpreter; findPythonSetup's when not given. */
  python?: PythonSetup;
  /** Measure this file (absolute, real path) with coverage.py; the arcs it recorded arrive in `report.coverage`. */
  coverFile?: string;
  /**
   * Run the targets once for each of these sources of a file (relative to cwd, POSIX), in one interpreter, each served
   * in place of the file's bytes, which stay as they are; each run's record arrives in `report.variants`, in order
   * (decision 0022).
   */
  mutants?: { file: string; sources: readonly string[] };
}

/** runPytest, with the interpreter chosen and coverage.py measuring a file. */
export async function runGate(run: PytestRun, variant: GateVariant): Promise<PytestResult> {
  const started = Date.now();
  const perTestMs = run.perTestTimeoutMs ?? DEFAULT_PER_TEST_MS;
  if (!(perTestMs > 0 && Number.isFinite(perTestMs))) throw new RangeError(`perTestTimeoutMs must be positive, got ${perTestMs}`);
  if (variant.mutants && variant.mutants.sources.length === 0) throw new RangeError("a mutants' run needs at least one source");
  const cwd = await packageDirectory(run.cwd);
  const python = variant.python ?? (await findPythonSetup());
  const bwrap = run.sandbox === "bwrap" ? await requireBwrap() : undefined;
  const limits = resolveLimits(run.limits);
  if (run.signal?.aborted) return notRun("the run was aborted before it started");

  // Private to this run: HOME and TMPDIR for the tests, our plugins, the JUnit report. Removed afterwards.
  // Made synchronously: three calls of a few microseconds each, where three trips through libuv's thread pool
  // cost a couple of milliseconds a run, three runs a node (issue 16).
  const privateDir = mkdtempSync(join(tmpdir(), "rpg-forge-pytest-"));
  try {
    const dirs = { home: join(privateDir, "home"), tmp: join(privateDir, "tmp") };
    for (const dir of Object.values(dirs)) mkdirSync(dir, { mode: 0o700 });
    const junitPath = join(privateDir, "junit.xml");
    const pytestArgs = [
      ...[...run.targets, "-q", "-p", "no:cacheprovider", `--junitxml=${junitPath}`],
      ...["-o", "junit_family=xunit2", "--color=no"],
      ...(run.plugins ?? []).flatMap((plugin) => ["-p", plugin]),
    ];
    const bootstrap = gateBootstrapSource({
      timeoutPluginSource: timeoutPluginSource(perTestMs),
      junitPath,
      limits: rlimitPairs(limits),
      pytestArgs,
      ...(variant.coverFile === undefined ? {} : { coverFile: variant.coverFile }),
      ...(variant.mutants === undefined ? {} : { mutantsOf: await realpath(join(cwd, variant.mutants.file)) }),
    });
    const env: Record<string, string> = {
      ...scrubbedEnv(process.env, dirs.home, dirs.tmp),
      PYTHONSAFEPATH: "1",
      PYTHONNOUSERSITE: "1",
      // In process mode the mark finds what left the group with setsid(). bubblewrap needs none: its PID namespace
      // dies with the sandbox, and a scan of every process's environment costs a few milliseconds a run (issue 16).
      ...(bwrap ? {} : { [RUN_MARK_VARIABLE]: randomUUID() }),
    };
    if (python.userSitePath.length > 0) env.PYTHONPATH = python.userSitePath.join(delimiter);
    if (run.plugins) env.PYTEST_DISABLE_PLUGIN_AUTOLOAD = "1";
    // -s: no user site, so no .pth file of the user's runs at start-up. The bootstrap goes on the
    // command line: nothing on disk that a process left behind by an earlier run could rewrite.
    const interpreter = [python.executable, "-s", "-c", bootstrap];
    const key = newReportKey();
    const runs = variant.mutants?.sources.length ?? 1;
    const common = {
      cwd,
      env,
      hardLimitMs: runs * hardLimitMs(run.targets, perTestMs),
      // The mutants' sources follow the key: text of any size, which argv would limit.
      secretInput: variant.mutants ? Buffer.concat([key, Buffer.from(JSON.stringify(variant.mutants.sources), "utf8")]) : key,
      maxReportBytes: MAX_SIGNED_REPORT_BYTES,
      ...(run.signal ? { signal: run.signal } : {}),
    };
    const command = bwrap
      ? {
          command: bwrap,
          args: [...bwrapArgs({ cwd, hidden: await hiddenDirs(), runtime: python.runtimeDirs, privateDir, env }), ...interpreter],
          statusFd: true,
        }
      : { command: interpreter[0]!, args: interpreter.slice(1) };
    let exit: GroupExit;
    try {
      // bwrap itself gets the scrubbed env too: code in the sandbox can read its reaper's /proc/1/environ.
      exit = await runInOwnGroup({ ...common, ...command });
    } catch (error) {
      throw new RpgForgeError(
        "SANDBOX_START_FAILED",
        `could not start ${bwrap ?? python.executable}: ${(error as Error).message}`,
        {},
        undefined,
        {
          cause: error,
        },
      );
    }
    if (bwrap && exit.killedBy === undefined && !exit.status.includes('"exit-code"')) {
      throw new RpgForgeError(
        "SANDBOX_START_FAILED",
        `bubblewrap could not set up the sandbox: ${exit.output.trim().split("\n").at(-1) ?? "no message"}`,
        { file: cwd },
        "bwrap passed its probe but failed on this run's mounts: check the path in the message, or choose the process sandbox",
      );
    }
    const exitCode = exit.killedBy ? -1 : exit.code;
    let report = verifySignedReport(exit.report, key);
    if (report.authentic && report.exitStatus !== exitCode) {
      report = { authentic: false, problem: `pytest exited ${exitCode} after reporting exit status ${report.exitStatus}` };
    }
    const junitXml = report.authentic ? report.junitXml : undefined;
    return {
      exitCode,
      timedOut: exit.killedBy === "time-limit",
      output: exit.output,
      tests: junitXml ? parseJUnitXml(junitXml) : [],
      junitXml,
      report,
      durationMs: Date.now() - started,
    };
  } finally {
    await removeTree(privateDir);
  }
}

function notRun(problem: string): PytestResult {
  return {
    exitCode: -1,
    timedOut: false,
    output: "",
    tests: [],
    junitXml: undefined,
    report: { authentic: false, problem },
    durationMs: 0,
  };
}

/** HIDDEN_DIRS and the user's home, those that exist as real folders (a tmpfs cannot go over a link). */
async function hiddenDirs(): Promise<string[]> {
  const found: string[] = [];
  for (const path of new Set([...HIDDEN_DIRS, homedir()])) {
    const info = await lstat(path).catch(() => undefined);
    if (info?.isDirectory() && path !== "/") found.push(path);
  }
  return found;
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
