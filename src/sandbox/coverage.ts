import { execFile } from "node:child_process";
import { copyFile, mkdtemp, realpath } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, isAbsolute, join, posix, sep } from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import type { Coverage } from "../record/coverage.js";
import { analyzeArcs, countOnRanges } from "./coverage-analysis.js";
import { scrubbedEnv } from "./env.js";
import { runGate, type PytestRun } from "./pytest.js";
import { findPythonSetup, type PythonSetup } from "./python.js";
import { removeTree } from "./remove-tree.js";

const run = promisify(execFile);

export interface CoverageRun extends PytestRun {
  /** The node's module, relative to cwd, POSIX (`stats/mean.py`). */
  file: string;
  /** The node's lines of that file, 1-based and inclusive (its symbol and its support code): only these are counted. */
  ranges: readonly (readonly [number, number])[];
  /** The interpreter; by default the one the gates use (findPythonSetup). coverage.py must be installed for it. */
  python?: PythonSetup;
}

/** A figure, or why there is none (coverage.py missing, the run cut short...). Never a verdict. */
export type CoverageMeasure = ({ available: true; durationMs: number } & Coverage) | { available: false; note: string };

/**
 * Runs the node's own tests (`targets`) once more, in the gates' sandbox and under the
 * same guard, with coverage.py measuring `file` with branch coverage, and counts the
 * statements and branch exits on `ranges` that the tests executed. The totals come from
 * coverage.py parsing a copy of the module taken before the run; what was executed is
 * recorded inside the interpreter that runs the generated code, which could claim more
 * (up to everything, never past the totals). So the figure is shown to people and decides
 * nothing (decision 0023). Throws only as runPytest does.
 */
export async function measureCoverage(measure: CoverageRun): Promise<CoverageMeasure> {
  for (const [start, end] of measure.ranges) {
    if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 1 && start <= end)) {
      throw new RangeError(`a line range is 1-based and inclusive, got [${start}, ${end}]`);
    }
  }
  const started = Date.now();
  const python = measure.python ?? (await findPythonSetup());
  const installed = await probeCoverage(python);
  if (!installed.ok) return { available: false, note: installed.note };
  const located = await moduleFile(measure.cwd, measure.file);
  if (typeof located !== "string") return { available: false, note: located.note };

  // The module as it is before its tests run: what is parsed for statements and branches (in process mode the tests could change the file).
  const copyDir = await mkdtemp(join(tmpdir(), "rpg-forge-coverage-"));
  try {
    const copy = join(copyDir, "module.py");
    if (
      !(await copyFile(located, copy).then(
        () => true,
        () => false,
      ))
    )
      return { available: false, note: `no coverage figure: ${measure.file} cannot be read` };
    const result = await runGate(measure, { python, coverFile: located });
    if (!result.report.authentic) return { available: false, note: `no coverage figure: ${result.report.problem}` };
    const status = result.report.exitStatus;
    if (status !== 0 && status !== 1) {
      return { available: false, note: `no coverage figure: pytest exited ${status} (${PYTEST_EXITS[status] ?? "unknown status"})` };
    }
    const recorded = RecordedSchema.safeParse(result.report.coverage);
    if (!recorded.success) return { available: false, note: "no coverage figure: the run sent no arcs" };
    if ("error" in recorded.data)
      return { available: false, note: `no coverage figure: coverage.py failed in the run (${recorded.data.error.slice(0, 300)})` };
    let analysis;
    try {
      analysis = await analyzeArcs(python, copy, recorded.data.arcs);
    } catch (error) {
      return { available: false, note: `no coverage figure: coverage.py could not analyse ${measure.file} (${lastLine(error)})` };
    }
    return { available: true, ...countOnRanges(analysis, measure.ranges), durationMs: Date.now() - started };
  } finally {
    await removeTree(copyDir);
  }
}

const PYTEST_EXITS: Record<number, string> = { 2: "interrupted", 3: "internal error", 4: "usage error", 5: "no tests ran" };

/** What the bootstrap's coverage_of sends in the signed report (src/sandbox/gate-bootstrap.ts): the arcs the tests executed. */
const RecordedSchema = z.union([z.strictObject({ arcs: z.array(z.tuple([z.int(), z.int()])) }), z.strictObject({ error: z.string() })]);

function lastLine(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message?: string };
  const text = stderr?.trim() || message || String(error);
  return (text.split("\n").at(-1) ?? text).slice(0, 300);
}

/** The module's real path (coverage.py keys its data by real paths), or why it cannot be measured. */
async function moduleFile(cwd: string, file: string): Promise<string | { note: string }> {
  const parts = file.split("/");
  if (isAbsolute(file) || parts.some((part) => part === "" || part === "." || part === "..") || posix.extname(file) !== ".py") {
    throw new RangeError(`the module must be a .py path relative to the package, got ${file}`);
  }
  // coverage.py takes the file as a pattern: these would match other files, or none.
  if (/[*?[\]]/.test(file)) return { note: `no coverage figure: coverage.py cannot be restricted to ${file} (a pattern character)` };
  const root = await realpath(cwd).catch(() => undefined);
  // A cwd that does not resolve is runPytest's error to report (SANDBOX_CWD_INVALID).
  if (root === undefined) return join(cwd, file);
  const real = await realpath(join(root, file)).catch(() => undefined);
  if (real === undefined) return { note: `no coverage figure: ${file} does not exist` };
  if (!real.startsWith(root + sep) || /[*?[\]]/.test(real)) {
    return { note: `no coverage figure: ${file} leads outside the package or to a path coverage.py cannot be restricted to` };
  }
  return real;
}

// A version with Coverage(data_file=None) and branch analysis as the bootstrap uses them.
const PROBE = "import coverage; print(coverage.version_info[0])";
const MIN_MAJOR = 5;
const PROBE_TIMEOUT_MS = 30_000;

type Probe = { ok: true } | { ok: false; note: string };
const probes = new Map<string, Promise<Probe>>();

/** Whether coverage.py is installed for this interpreter as the sandbox runs it (user site off, its entries on PYTHONPATH); once per interpreter. */
export function probeCoverage(python: PythonSetup): Promise<Probe> {
  let probe = probes.get(python.executable);
  if (!probe) {
    probe = probeOnce(python);
    probes.set(python.executable, probe);
  }
  return probe;
}

async function probeOnce(python: PythonSetup): Promise<Probe> {
  const missing = `coverage.py is not installed for ${python.executable}: apt-get install python3-coverage, or pip install coverage`;
  const env: Record<string, string> = { ...scrubbedEnv(process.env, homedir(), tmpdir()), PYTHONNOUSERSITE: "1" };
  if (python.userSitePath.length > 0) env.PYTHONPATH = python.userSitePath.join(delimiter);
  try {
    const { stdout } = await run(python.executable, ["-s", "-c", PROBE], { env, timeout: PROBE_TIMEOUT_MS });
    const major = Number.parseInt(stdout.trim(), 10);
    if (!(major >= MIN_MAJOR))
      return { ok: false, note: `coverage.py ${stdout.trim()} for ${python.executable} is too old (${MIN_MAJOR} or later is needed)` };
    return { ok: true };
  } catch {
    return { ok: false, note: missing };
  }
}
