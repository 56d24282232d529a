import { randomBytes } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, unlinkSync } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { RpgForgeError } from "../errors.js";
import { bwrapArgs, findBwrap, HIDDEN_DIRS, probeBwrap } from "./bwrap.js";
import { scrubbedEnv } from "./env.js";
import { gateLauncherProgram, gateSettings } from "./gate-bootstrap.js";
import { CONFINEMENT_SOURCE } from "./gate-confinement-source.js";
import { EXCLUDED_PLUGIN_ARGS } from "./gate-launcher-source.js";
import { parseJUnitXml, type TestCaseResult } from "./junit.js";
import { resolveLimits, rlimitPairs, type ResourceLimits } from "./limits.js";
import { Launcher } from "./launcher.js";
import { withLauncher, type PooledLauncher } from "./launcher-pool.js";
import { findPythonSetup, type PythonSetup } from "./python.js";
import { removeTree } from "./remove-tree.js";
import { newReportKey, verifySignedReport, type SignedReport } from "./signed-report.js";
import { timeoutPluginSource } from "./timeout-plugin.js";

export type { TestCaseResult } from "./junit.js";

/**
 * Where generated tests run (docs/security.md says what each guarantees). Either way a launcher (decision 0031) forks
 * each gate from an interpreter that has imported pytest, and ends everything the gate started before it serves the
 * next one; the gate holds no capability, and a seccomp filter keeps the processes it starts from tracing it.
 * - "bwrap": a bubblewrap sandbox for the launcher. The package is read-only, the only writable places are a private
 *   HOME and TMPDIR, /tmp and /dev (a gate that leaves anything in these retires its launcher); there is no network;
 *   home directories, /opt and /run are hidden, and there is no /proc; the parent's processes and environment are
 *   invisible; and everything the tests start dies with the sandbox.
 * - "process": the launcher as a plain child process with a scrubbed environment; each gate in its own process group,
 *   with the resource limits and the user site off. It cannot stop generated code from writing anywhere the user can
 *   (the engine then finds the change and fails the node, see PackageFiles.verify), from using the network, or from
 *   reading the engine's environment through /proc/<pid>/environ. That is why bwrap is preferred whenever it works.
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
  const { path: cwd, identity } = await packageDirectory(run.cwd);
  const python = variant.python ?? (await findPythonSetup());
  const bwrap = run.sandbox === "bwrap" ? await requireBwrap() : undefined;
  const limits = resolveLimits(run.limits);
  if (run.signal?.aborted) return notRun("the run was aborted before it started");

  const place = launcherPlace(python, bwrap, cwd, identity);
  return withLauncher(place.key, place.start, async ({ launcher, privateDir }) => {
    // In the launcher's folder: HOME and TMPDIR for the tests (empty, as every gate finds them), and this gate's JUnit
    // report, under a name of its own.
    const junitName = `junit-${randomBytes(6).toString("hex")}.xml`;
    try {
      const dirs = { home: join(privateDir, "home"), tmp: join(privateDir, "tmp") };
      const junitPath = join(privateDir, junitName);
      const pytestArgs = [
        ...[...run.targets, "-q", ...EXCLUDED_PLUGIN_ARGS, `--junitxml=${junitPath}`],
        ...["-o", "junit_family=xunit2", "--color=no"],
        ...(run.plugins ?? []).flatMap((plugin) => ["-p", plugin]),
        // A mutants' run is a measure read from its record alone: pytest's report of each failure, its source and
        // traceback, was about 9 ms a failing test, and most tests fail against a mutant (issue 16).
        ...(variant.mutants ? ["--tb=no"] : []),
      ];
      const settings = gateSettings({
        timeoutPluginSource: timeoutPluginSource(perTestMs),
        junitPath,
        limits: rlimitPairs(limits),
        pytestArgs,
        ...(variant.coverFile === undefined ? {} : { coverFile: variant.coverFile }),
        ...(variant.mutants === undefined ? {} : { mutantsOf: await realpath(join(cwd, variant.mutants.file)) }),
      });
      const env = { ...pythonEnv(python, dirs.home, dirs.tmp), ...(run.plugins ? { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" } : {}) };
      const key = newReportKey();
      const runs = variant.mutants?.sources.length ?? 1;
      const exit = await launcher.run({
        cwd,
        env,
        settings,
        // The limit counts from the call: a launcher's start (the interpreter, pytest's import) is part of the start-up
        // it allows for.
        hardLimitMs: Math.max(1_000, runs * hardLimitMs(run.targets, perTestMs) - (Date.now() - started)),
        // The mutants' sources follow the key: text of any size, which argv would limit.
        secret: variant.mutants ? Buffer.concat([key, Buffer.from(JSON.stringify(variant.mutants.sources), "utf8")]) : key,
        ...(run.signal ? { signal: run.signal } : {}),
      });
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
      // Everything in the launcher's folder, not just this gate's: the tests may write anywhere in it (bubblewrap). What
      // cannot be removed would reach the next gate: the launcher goes instead.
      if (!(await readyAgain(launcher, privateDir, junitName))) launcher.retire();
    }
  });
}

/** HOME and TMPDIR of every gate a launcher serves, in its private folder. */
const GATE_FOLDERS = ["home", "tmp"] as const;

function makeGateFolders(privateDir: string): void {
  for (const name of GATE_FOLDERS) mkdirSync(join(privateDir, name), { mode: 0o700 });
}

/** The variables of an interpreter that runs generated code: the scrubbed ones, and Python's own settings. */
function pythonEnv(python: PythonSetup, home: string, tmp: string): Record<string, string> {
  const env: Record<string, string> = { ...scrubbedEnv(process.env, home, tmp), PYTHONSAFEPATH: "1", PYTHONNOUSERSITE: "1" };
  if (python.userSitePath.length > 0) env.PYTHONPATH = python.userSitePath.join(delimiter);
  return env;
}

/**
 * Where a gate runs: the launcher of this interpreter, in process mode; in bubblewrap, the launcher of this interpreter
 * in a sandbox made for this package directory (the folder is mounted at its place, read-only, when the sandbox is
 * made: a folder made again at the same path needs a sandbox of its own).
 */
function launcherPlace(
  python: PythonSetup,
  bwrap: string | undefined,
  cwd: string,
  identity: string,
): { key: string; start: () => Promise<PooledLauncher> } {
  // A sandbox's mount of the package is of the folder that was there when it was made.
  const key = JSON.stringify([python.executable, bwrap ? [cwd, identity] : null]);
  const start = async (): Promise<PooledLauncher> => {
    const privateDir = mkdtempSync(join(tmpdir(), "rpg-forge-pytest-"));
    makeGateFolders(privateDir);
    const stamp = stampOf(privateDir);
    // The interpreter confines itself and then becomes the launcher, whose program comes through a pipe
    // (gate-confinement-source.ts). -s: no user site, so no .pth file of the user's runs at start-up. -S: the confinement
    // needs only the standard library, and site's .pth files can cost more than the rest of its start (one that imports
    // certifi took 60 ms of 80 on a test machine); the launcher it becomes runs with site, for pytest.
    const interpreter = [python.executable, "-s", "-S", "-c", CONFINEMENT_SOURCE, bwrap ? "bwrap" : "process"];
    // The launcher's own variables: those the interpreter reads at start-up must be the gates' (each gate sets the rest).
    const env = pythonEnv(python, privateDir, privateDir);
    const command = bwrap
      ? {
          command: bwrap,
          args: [...bwrapArgs({ cwd, hidden: await hiddenDirs(), runtime: python.runtimeDirs, privateDir, env }), ...interpreter],
        }
      : { command: interpreter[0]!, args: interpreter.slice(1) };
    try {
      const launcher = await Launcher.start(
        { ...command, cwd: privateDir, env, program: gateLauncherProgram(), sharesPids: !bwrap },
        bwrap ?? python.executable,
      );
      stamps.set(launcher, stamp);
      return { launcher, privateDir };
    } catch (error) {
      await removeTree(privateDir);
      throw new RpgForgeError(
        "SANDBOX_START_FAILED",
        bwrap
          ? `bubblewrap could not set up the sandbox: ${(error as Error).message}`
          : `could not start ${python.executable}: ${(error as Error).message}`,
        { file: cwd },
        bwrap ? "check the path in the message, or choose the process sandbox" : undefined,
        { cause: error },
      );
    }
  };
  return { key, start };
}

/** A launcher's private folder as it was made: its device and inode. */
interface FolderStamp {
  dev: bigint;
  ino: bigint;
}

const stamps = new WeakMap<Launcher, FolderStamp>();

function stampOf(privateDir: string): FolderStamp {
  const { dev, ino } = lstatSync(privateDir, { bigint: true });
  return { dev, ino };
}

/**
 * Readies a launcher's folder for its next gate; false when it cannot, and the launcher must go. A gate that left HOME
 * and TMPDIR as it found them costs a look and the removal of its JUnit report: making a folder per gate and removing it
 * took 2.4 ms of file system calls a gate on this disk, three gates a node, on the node's path (issue 16). Anything else
 * and the folder is emptied whole and HOME and TMPDIR made anew. A folder that is no longer the one made (moved away, a
 * link in its place: in process mode the tests run as the engine's user) is left alone: emptying it would empty
 * wherever the link points, with the engine's rights.
 */
async function readyAgain(launcher: Launcher, privateDir: string, junitName: string): Promise<boolean> {
  const stamp = stamps.get(launcher);
  if (!stamp || !isSameFolder(privateDir, stamp)) return false;
  if (leftAsFound(privateDir, junitName)) return true;
  if (!(await emptyFolder(privateDir))) return false;
  try {
    makeGateFolders(privateDir);
    return isSameFolder(privateDir, stamp);
  } catch {
    return false;
  }
}

function isSameFolder(privateDir: string, stamp: FolderStamp): boolean {
  const info = lstatSync(privateDir, { bigint: true, throwIfNoEntry: false });
  return info !== undefined && info.isDirectory() && info.dev === stamp.dev && info.ino === stamp.ino;
}

/**
 * Whether a gate left the launcher's folder as the gate found it but for its JUnit report, which is removed: HOME and
 * TMPDIR in it, folders of mode 700 (not links), empty, and nothing else.
 */
function leftAsFound(privateDir: string, junitName: string): boolean {
  try {
    if (!isPrivateFolder(privateDir)) return false;
    const names = readdirSync(privateDir);
    const expected = new Set([...GATE_FOLDERS, junitName]);
    if (!names.every((name) => expected.has(name))) return false;
    for (const name of GATE_FOLDERS) {
      const folder = join(privateDir, name);
      if (!isPrivateFolder(folder) || readdirSync(folder).length > 0) return false;
    }
    // A folder under the report's name fails here, and the folder is emptied whole.
    if (names.includes(junitName)) unlinkSync(join(privateDir, junitName));
    return true;
  } catch {
    return false;
  }
}

function isPrivateFolder(path: string): boolean {
  const info = lstatSync(path);
  return info.isDirectory() && (info.mode & 0o7777) === 0o700;
}

/** Empties a folder of ours the tests could write to (and chmod: it gets its mode back first); whether it is empty now. */
async function emptyFolder(folder: string): Promise<boolean> {
  try {
    chmodSync(folder, 0o700);
    for (const name of readdirSync(folder)) await removeTree(join(folder, name));
    return readdirSync(folder).length === 0;
  } catch {
    return false;
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

/** The package directory's real path, and which folder it is (a folder made again at the same path is another one). */
async function packageDirectory(cwd: string): Promise<{ path: string; identity: string }> {
  const invalid = (why: string, cause?: unknown): RpgForgeError =>
    new RpgForgeError("SANDBOX_CWD_INVALID", `the package directory ${why}`, { file: cwd }, undefined, cause ? { cause } : undefined);
  if (!isAbsolute(cwd)) throw invalid("must be an absolute path");
  try {
    // bwrap binds real paths; a symlinked cwd would be mounted at a different place than it is entered.
    const real = await realpath(cwd);
    const info = await stat(real, { bigint: true });
    if (!info.isDirectory()) throw invalid("is not a directory");
    return { path: real, identity: `${info.dev}:${info.ino}:${info.birthtimeNs}` };
  } catch (error) {
    if (error instanceof RpgForgeError) throw error;
    throw invalid("does not exist", error);
  }
}
