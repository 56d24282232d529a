/**
 * Issue 16: how close the engine comes to the limits the model and pytest set. The real
 * `generate()` (sandbox "process", git off, the python3 the engine finds) runs three
 * graphs into temp dirs against a local fake OpenAI-compatible server that answers every
 * request after a fixed latency, at each concurrency asked for, and the wall time is set
 * beside a lower bound on it.
 *
 *   npm run bench:engine         # the full table: 3 shapes × concurrency 1, 4, 16 (7-8 min on 2 cores)
 *   npx tsx bench/engine-speed-bench.ts --shapes independent,chain --concurrency 1,4 --latency 300 --nodes 12
 *   npm run bench                # a subset beside the other figures: 12 independent nodes at concurrency 4
 * Flags: --shapes (independent, chain, grid), --concurrency (a list), --latency (ms a reply, 200),
 * --nodes (only the first N nodes of each shape: a prefix of each graph is a graph of its kind).
 * It prints rows in measure.ts's format against the targets, then a markdown table of the
 * details (the one docs/decisions/0019-engine-speed.md quotes). The machine's load average is
 * printed before and after: on a shared 2-core machine it moves every figure.
 *
 * The graphs (every node a function leaf `def f_<i>(x: int) -> int` alone in src/speed/m<i>.py):
 * - independent: 40 nodes, no dependencies;
 * - chain: 40 nodes, f_<i> depending on f_<i-1>;
 * - grid: 200 nodes in 20 layers of 10; node j of layer L (f_<10L+j+1>) depends on nodes j
 *   and (j+1) mod 10 of layer L-1, so the critical path is 20 nodes and every layer
 *   waits on the whole of the one before it within two steps.
 * The model answers a node's tests request with `from speed.m<i> import f_<i>` and
 * `assert f_<i>(1) == 1 + <i>` (red against the engine's stub) and its implementation
 * request with `return x + <i>`: two model calls and three pytest runs per node (red, green, and the mutants' run that
 * measures the tests' strength).
 * Once every node has passed, the subgraph's integration tests are asked for (one test through
 * f_1) and run, and one pytest run of the whole suite comes when the package is assembled.
 *
 * What is measured, from outside the engine (src/ is not touched):
 * - model time: the server records each request's interval (arrival to reply), so its
 *   latency (the --latency flag, 200 ms by default) is known per call and per node;
 * - pytest time: Launcher.prototype.run is wrapped to record each pytest run's interval, from
 *   its request to its answer, and its CPU time: the growth of the launcher's own CPU and
 *   its reaped children's (/proc/<pid>/stat: utime, stime, cutime, cstime; the launcher
 *   reaps every gate and what it left before it answers). A launcher's start (the
 *   interpreter, pytest's import) is put on the first run it serves. The engine's run events
 *   and the artifacts under .rpg-forge/runs/ do not hold pytest's duration, hence the wrapper.
 *   A run is a node's gate when its pytest arguments name that node's test, else the suite.
 *   child_process.spawn is wrapped too (syncBuiltinESMExports() makes the engine's
 *   `import { spawn }` see the wrapper), for the Python helper workers;
 * - the engine's own CPU: this process's (process.cpuUsage, the fake server's share
 *   included, which is small) and the Python helper workers' (/proc/<pid>/stat);
 * - pyright-langserver's CPU, apart: the run starts one (as a CLI run does) and tells it of each
 *   node's files; it is neither the engine's nor pytest's, and the bound does not count it.
 * A one-node warm-up run comes first, so every row is a warm process (the python probe and
 * the helper workers' start are paid there, once, as a CLI run pays them once).
 *
 * The bound is issue 16's max of three terms, each a time the run cannot beat:
 * - critical path: the longest dependency path, each node weighing its model calls'
 *   latency plus its gate runs at the mean pytest CPU time per gate run of this run (CPU
 *   rather than wall: a pytest run's wall time grows with contention, its CPU time
 *   barely), plus the subgraph's integration request (asked once its last node has passed)
 *   and the pytest runs that are not a node's gate (its integration tests, the suite);
 * - all calls' latency / concurrency: at concurrency 1 a node holds the one slot for its
 *   model calls and its pytest runs, so the sum of both over all nodes (with the model calls
 *   alone this term would say nothing there, where the nodes' pytest runs are as serial as
 *   their model calls); above 1, c is the model requests in flight and pytest runs wait for
 *   a core instead (decision 0029), so the model calls' latency alone, divided by c;
 * - pytest CPU time / cores: every pytest run's CPU time, divided by os.availableParallelism().
 * ratio = wall / bound.
 *
 * Engine time per node = (wall − the time during which at least one model request or one
 * pytest run was in flight − the run's fixed work) / nodes: the wall the engine adds for each
 * node. The run's fixed work, the same for 1 node or 10,000, is that idle wall before the first
 * node starts (checks, scaffold, work tree) and after the last ends (assembly, snapshot,
 * commits); the detail table shows it apart. At concurrency 1 it is the engine's whole cost; with more in flight its
 * work hides behind model waits, so the detail table also gives the time inside each node
 * that is neither its own model calls nor its own pytest runs ("in-node"), and the engine's
 * CPU per node (this process plus the helper workers).
 */
import childProcess, { type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { generate } from "../src/engine/generate.js";
import type { RunEvent } from "../src/engine/events.js";
import { createOpenAiProvider } from "../src/llm/openai-provider.js";
import { Launcher, type GateRequest } from "../src/sandbox/launcher.js";
import { committedReport } from "../src/report/generation-report.js";
import { parseRpgText } from "../src/rpg/load.js";
import { startFakeOpenAi } from "../tests/helpers/fake-openai-server.js";
import { kindOf, nodeOf } from "../tests/helpers/scripted-model.js";
import { formatMs, now, renderTable, summarize, timingRow, type Row } from "./measure.js";

/** Issue 16's goals on this machine. */
export const TARGETS = { ratio: 1.3, engineMsPerNode: 50 } as const;

export const SHAPES = ["independent", "chain", "grid"] as const;
export type Shape = (typeof SHAPES)[number];

export interface SpeedOptions {
  shapes: readonly Shape[];
  concurrency: readonly number[];
  /** The fake model's latency per reply, in ms. */
  latencyMs: number;
  /** Only the first this many nodes of each shape (a prefix of each graph is a graph of the same kind). */
  nodes?: number | undefined;
  /** Progress lines (stderr). */
  log?: (line: string) => void;
}

export interface BenchOutput {
  rows: Row[];
  notes: string[];
  fail: (message: string) => void;
}

/** One generate run, measured. Times in ms. */
export interface SpeedResult {
  shape: Shape;
  nodes: number;
  concurrency: number;
  wall: number;
  bound: number;
  /** Which term of the bound is the largest. */
  binding: "critical path" | "calls / c" | "pytest CPU / cores";
  criticalPath: number;
  callsPerSlot: number;
  cpuPerCore: number;
  ratio: number;
  /** The engine's wall between the first node's start and the last node's end, per node: its cost for each node it generates. */
  engineMsPerNode: number;
  /** The engine's wall before the first node starts (checks, scaffold, work tree) and after the last ends (assembly, commits): once per run. */
  fixedMs: number;
  inNodeEngineMsPerNode: number;
  engineCpuMsPerNode: number;
  /** Of which the Python helper workers'. */
  helperCpuMsPerNode: number;
  /** pyright-langserver's CPU (and its children's), per node: neither the engine's nor pytest's, but the same cores'. */
  languageServerCpuMsPerNode: number;
  /** The run's CPU (engine, helpers, pytest, the language server) over wall × cores: the share of the machine it got. */
  machineShare: number;
  modelCalls: number;
  pytestRuns: number;
  pytestWallPerRun: number;
  pytestCpuPerRun: number;
  /** Node-time in flight over wall: how many nodes ran at once on average. */
  meanInFlight: number;
  passed: number;
}

// ---------------------------------------------------------------------------------------------
// The graphs

interface SpeedNode {
  index: number;
  deps: number[];
}

export function shapeNodes(shape: Shape): SpeedNode[] {
  switch (shape) {
    case "independent":
      return Array.from({ length: 40 }, (_, k) => ({ index: k + 1, deps: [] }));
    case "chain":
      return Array.from({ length: 40 }, (_, k) => ({ index: k + 1, deps: k === 0 ? [] : [k] }));
    case "grid": {
      const width = 10;
      return Array.from({ length: 200 }, (_, k) => {
        const layer = Math.floor(k / width);
        const column = k % width;
        const above = (c: number): number => (layer - 1) * width + c + 1;
        return { index: k + 1, deps: layer === 0 ? [] : [above(column), above((column + 1) % width)] };
      });
    }
  }
}

const idOf = (index: number): string => `f_${index}`;

function rpgText(nodes: readonly SpeedNode[]): string {
  const doc = {
    nodes: nodes.map(({ index, deps }) => ({
      id: idOf(index),
      name: idOf(index),
      type: "function",
      node_type: "leaf",
      file_path: `src/speed/m${index}.py`,
      signature: `def f_${index}(x: int) -> int`,
      docstring: `Return x plus ${index}.`,
      dependencies: deps.map(idOf),
      subgraph_id: "speed",
    })),
    edges: [],
    metadata: { name: "speed" },
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** The fake model's reply to any request about node f_<i>. */
function replyFor(kind: string, index: number): unknown {
  const code = `def f_${index}(x: int) -> int:\n    """Return x plus ${index}."""\n    return x + ${index}\n`;
  switch (kind) {
    case "tests":
      return {
        test_code: `from speed.m${index} import f_${index}\n\n\ndef test_f_${index}_adds():\n    assert f_${index}(1) == ${1 + index}\n`,
        notes: "",
      };
    case "implementation":
      return { imports: [], code, support: "", notes: "" };
    case "fix":
      return { imports: [], code, support: "", explanation: "" };
    case "integration_tests":
      // The subgraph's, once its nodes pass: one test through the first node, which every prefix of a graph has.
      return { test_code: "from speed.m1 import f_1\n\n\ndef test_f_1_twice():\n    assert f_1(f_1(0)) == 2\n", notes: "" };
    default:
      return { verdict: "implementation_bug", reason: "the code is wrong" };
  }
}

// ---------------------------------------------------------------------------------------------
// Outside instruments: the model's calls (server side) and the processes the engine starts

interface Span {
  start: number;
  end: number;
}

interface ModelCall extends Span {
  node: string;
}

interface ProcessSpan extends Span {
  kind: "gate" | "suite" | "helper" | "language-server" | "other";
  node: string | undefined;
  /** The growth of this process's children's CPU time when this one was reaped. */
  cpuMs: number;
  exited: boolean;
}

const TICK_MS = 10; // 1000 / sysconf(_SC_CLK_TCK), 100 on Linux

/** Fields of /proc/<pid>/stat after the command name, so that fields[0] is field 3 (state). */
function statFields(pid: number | "self"): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** cutime + cstime: CPU time of the children this process has reaped. */
function reapedChildrenCpuMs(): number {
  const f = statFields("self");
  return f ? (Number(f[13]) + Number(f[14])) * TICK_MS : NaN;
}

/** utime + stime of a live process, 0 when it is gone. */
function processCpuMs(pid: number): number {
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) * TICK_MS : 0;
}

let spans: ProcessSpan[] = [];
const helperPids = new Set<number>();
let lastReaped = 0;
let installed = false;

/** Wraps child_process.spawn once, for the whole process; the engine's ESM imports see it through syncBuiltinESMExports. */
function installSpawnProbe(): void {
  if (installed) return;
  installed = true;
  lastReaped = reapedChildrenCpuMs();
  const original = childProcess.spawn as unknown as (...args: unknown[]) => ChildProcess;
  const wrapped = function (this: unknown, ...args: unknown[]): ChildProcess {
    const child = original.apply(this, args);
    const argv = Array.isArray(args[1]) ? (args[1] as unknown[]).map(String) : [];
    const span: ProcessSpan = { kind: "other", node: undefined, start: now(), end: NaN, cpuMs: 0, exited: false };
    if (argv[0] === "-I" && argv[1] === "-c") {
      span.kind = "helper";
      if (child.pid !== undefined) helperPids.add(child.pid);
    } else if (argv.includes("--stdio")) span.kind = "language-server";
    spans.push(span);
    child.once("exit", () => {
      span.end = now();
      span.exited = true;
      const reaped = reapedChildrenCpuMs();
      span.cpuMs = reaped - lastReaped;
      lastReaped = reaped;
      if (child.pid !== undefined) helperPids.delete(child.pid);
    });
    return child;
  };
  (childProcess as unknown as { spawn: unknown }).spawn = wrapped;
  syncBuiltinESMExports();
  installLauncherProbe();
}

/** Wraps Launcher.prototype.run: each pytest run's interval, and the CPU its launcher and what it reaped spent on it. */
function installLauncherProbe(): void {
  const original = Launcher.prototype.run;
  // Per launcher, its CPU when it last answered; 0 before its first run, which pays for its start.
  const answered = new Map<number, number>();
  Launcher.prototype.run = async function (this: Launcher, request: GateRequest) {
    const gate = /::test_(f_\d+)_adds\b/.exec(JSON.stringify(request.settings.args));
    const span: ProcessSpan = { kind: gate ? "gate" : "suite", node: gate?.[1], start: now(), end: NaN, cpuMs: 0, exited: false };
    spans.push(span);
    try {
      return await original.call(this, request);
    } finally {
      span.end = now();
      span.exited = true;
      const f = statFields(this.pid);
      const total = f ? (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS : (answered.get(this.pid) ?? 0);
      span.cpuMs = total - (answered.get(this.pid) ?? 0);
      answered.set(this.pid, total);
    }
  };
}

function helperCpuMs(): Map<number, number> {
  return new Map([...helperPids].map((pid) => [pid, processCpuMs(pid)]));
}

/** The length of the union of `spans` (clipped to [from, to]). */
function unionLength(list: readonly Span[], from: number, to: number): number {
  const sorted = list
    .map((s) => ({ start: Math.max(from, s.start), end: Math.min(to, s.end) }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const s of sorted) {
    if (s.start > end) {
      if (end > start) total += end - start;
      start = s.start;
      end = s.end;
    } else end = Math.max(end, s.end);
  }
  if (end > start) total += end - start;
  return total;
}

// ---------------------------------------------------------------------------------------------
// One run

async function runOnce(
  shape: Shape,
  nodes: readonly SpeedNode[],
  concurrency: number,
  latencyMs: number,
  fail: (message: string) => void,
  scratch: string,
): Promise<SpeedResult> {
  const calls: ModelCall[] = [];
  const server = await startFakeOpenAi(async (body) => {
    const node = nodeOf(body);
    const kind = kindOf(body);
    const index = Number(/^f_(\d+)$/.exec(node)?.[1] ?? NaN);
    const start = now();
    await sleep(latencyMs);
    calls.push({ node, start, end: now() });
    return { content: JSON.stringify(replyFor(kind, index)), usage: { prompt_tokens: 100, completion_tokens: 20 } };
  });
  const loaded = parseRpgText(rpgText(nodes), "rpg.json");
  if (!loaded.ok) throw new Error(`the ${shape} graph is invalid: ${JSON.stringify(loaded.issues.slice(0, 3))}`);
  const dir = await mkdtemp(join(scratch, "run-"));
  const started = new Map<string, number>();
  const finished = new Map<string, number>();
  const onEvent = (event: RunEvent): void => {
    if (event.type === "node-started") started.set(event.nodeId, now());
    else if (event.type === "node-finished") finished.set(event.nodeId, now());
  };
  spans = [];
  const helpersBefore = helperCpuMs();
  const cpuBefore = process.cpuUsage();
  const t0 = now();
  let wall: number;
  let passed: number;
  try {
    const result = await generate({
      rpg: loaded.value,
      rpgPath: "rpg.json",
      rpgSha256: "0".repeat(64),
      outDir: join(dir, "out"),
      provider: createOpenAiProvider({ apiKey: "bench-key", baseURL: server.url, model: "fake-model", maxRetries: 0 }),
      model: "fake-model",
      mode: "new",
      concurrency,
      sandbox: "process",
      git: false,
      renderCommittedReport: committedReport,
      onEvent,
    });
    wall = now() - t0;
    passed = result.summary.counts.passed;
  } finally {
    await server.close();
  }
  const cpu = process.cpuUsage(cpuBefore);
  // The language server is stopped as the run ends; its CPU is known once it has been reaped.
  const servers = spans.filter((s) => s.kind === "language-server");
  for (let waited = 0; waited < 5000 && servers.some((s) => !s.exited); waited += 20) await sleep(20);
  const languageServerCpu = servers.reduce((sum, s) => sum + s.cpuMs, 0);
  const helpersAfter = helperCpuMs();
  let helperCpu = 0;
  for (const [pid, ms] of helpersAfter) helperCpu += ms - (helpersBefore.get(pid) ?? 0);
  const t1 = t0 + wall;

  const n = nodes.length;
  if (passed !== n) fail(`${shape} at concurrency ${concurrency}: ${passed} of ${n} nodes passed`);
  const pytest = spans.filter((s) => s.exited && (s.kind === "gate" || s.kind === "suite"));
  const gates = pytest.filter((s) => s.kind === "gate");
  const suites = pytest.filter((s) => s.kind === "suite");
  const gateCpuPerRun = gates.length > 0 ? gates.reduce((sum, s) => sum + s.cpuMs, 0) / gates.length : 0;
  const pytestCpu = pytest.reduce((sum, s) => sum + s.cpuMs, 0);
  const suiteCpu = suites.reduce((sum, s) => sum + s.cpuMs, 0);

  const modelOf = new Map<string, number>();
  for (const c of calls) modelOf.set(c.node, (modelOf.get(c.node) ?? 0) + (c.end - c.start));
  const gatesOf = new Map<string, ProcessSpan[]>();
  for (const g of gates) gatesOf.set(g.node!, [...(gatesOf.get(g.node!) ?? []), g]);
  const weight = (id: string): number => (modelOf.get(id) ?? 0) + (gatesOf.get(id)?.length ?? 0) * gateCpuPerRun;
  // Node indexes grow along every dependency, so one pass in index order is a topological one.
  const longest = new Map<number, number>();
  for (const { index, deps } of nodes) longest.set(index, weight(idOf(index)) + Math.max(0, ...deps.map((d) => longest.get(d) ?? 0)));
  // The subgraph's integration tests are asked for once its last node has passed: after the longest path, as the suite is.
  const nodeIds = new Set(nodes.map(({ index }) => idOf(index)));
  const subgraphCalls = calls.filter((c) => !nodeIds.has(c.node));
  const criticalPath = Math.max(0, ...longest.values()) + subgraphCalls.reduce((sum, c) => sum + (c.end - c.start), 0) + suiteCpu;
  const allNodeWork = nodes.reduce((sum, { index }) => sum + weight(idOf(index)), 0);
  const modelLatency = calls.reduce((sum, c) => sum + (c.end - c.start), 0);
  const callsPerSlot = (concurrency > 1 ? modelLatency : allNodeWork) / concurrency;
  const cpuPerCore = pytestCpu / availableParallelism();
  const terms = [
    ["critical path", criticalPath],
    ["calls / c", callsPerSlot],
    ["pytest CPU / cores", cpuPerCore],
  ] as const;
  const [binding, bound] = terms.reduce((a, b) => (b[1] > a[1] ? b : a));

  const busy = unionLength([...calls, ...pytest], t0, t1);
  // A run's own work before its first node and after its last is paid once, whatever the graph's size: apart from the per-node figure.
  const firstStart = Math.min(...started.values());
  const lastFinish = Math.max(...finished.values());
  const idleBetween = (from: number, to: number): number => Math.max(0, to - from - unionLength([...calls, ...pytest], from, to));
  const fixed = idleBetween(t0, firstStart) + idleBetween(lastFinish, t1);
  let inNode = 0;
  let nodeTime = 0;
  for (const { index } of nodes) {
    const id = idOf(index);
    const s = started.get(id);
    const f = finished.get(id);
    if (s === undefined || f === undefined) continue;
    nodeTime += f - s;
    const own = (modelOf.get(id) ?? 0) + (gatesOf.get(id) ?? []).reduce((sum, g) => sum + (g.end - g.start), 0);
    inNode += f - s - own;
  }
  return {
    shape,
    nodes: n,
    concurrency,
    wall,
    bound,
    binding,
    criticalPath,
    callsPerSlot,
    cpuPerCore,
    ratio: wall / bound,
    engineMsPerNode: (wall - busy - fixed) / n,
    fixedMs: fixed,
    inNodeEngineMsPerNode: inNode / n,
    engineCpuMsPerNode: ((cpu.user + cpu.system) / 1000 + helperCpu) / n,
    helperCpuMsPerNode: helperCpu / n,
    languageServerCpuMsPerNode: languageServerCpu / n,
    machineShare: ((cpu.user + cpu.system) / 1000 + helperCpu + pytestCpu + languageServerCpu) / (wall * availableParallelism()),
    modelCalls: calls.length,
    pytestRuns: pytest.length,
    pytestWallPerRun: pytest.length > 0 ? pytest.reduce((sum, s) => sum + (s.end - s.start), 0) / pytest.length : 0,
    pytestCpuPerRun: pytest.length > 0 ? pytestCpu / pytest.length : 0,
    meanInFlight: nodeTime / wall,
    passed,
  };
}

// ---------------------------------------------------------------------------------------------
// The table

function labelOf(shape: Shape, nodes: number): string {
  if (shape === "independent") return `${nodes} independent`;
  return shape === "chain" ? `${nodes}-node chain` : `${nodes}-node grid (rows of 10)`;
}

/** Runs every shape at every concurrency; adds rows in measure.ts's format to `out`, and returns the measurements. */
export async function benchEngineSpeed(options: SpeedOptions, out: BenchOutput): Promise<SpeedResult[]> {
  installSpawnProbe();
  const log = options.log ?? (() => undefined);
  // Run folders are removed only when the bench ends: where the temp folder is ext4 without a journal (decision 0019,
  // session 20), making a file scans the inodes removed in the last minutes, so the thousands one run removed would be
  // paid for by the next run's engine, which a user's run does not pay. About 100 MB for the full table; an interrupted
  // bench leaves them all in the temp folder.
  const scratch = await mkdtemp(join(tmpdir(), "rpg-forge-speed-"));
  try {
    return await runAll(options, out, log, scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function runAll(options: SpeedOptions, out: BenchOutput, log: (line: string) => void, scratch: string): Promise<SpeedResult[]> {
  log(`engine speed: warm-up (1 node)`);
  await runOnce("independent", shapeNodes("independent").slice(0, 1), 1, 0, out.fail, scratch);
  const results: SpeedResult[] = [];
  for (const shape of options.shapes) {
    const nodes = shapeNodes(shape).slice(0, options.nodes);
    for (const concurrency of options.concurrency) {
      log(`engine speed: ${labelOf(shape, nodes.length)} at concurrency ${concurrency}, model latency ${options.latencyMs} ms`);
      const r = await runOnce(shape, nodes, concurrency, options.latencyMs, out.fail, scratch);
      results.push(r);
      out.rows.push({
        figure: `${labelOf(shape, nodes.length)}, c=${concurrency}: wall ${formatMs(r.wall)} / bound ${formatMs(r.bound)} (${r.binding})`,
        value: `${r.ratio.toFixed(2)}×`,
        target: `≤ ${TARGETS.ratio}×`,
        verdict: r.ratio <= TARGETS.ratio ? "ok" : "SLOW",
      });
      out.rows.push(timingRow("  engine outside model and pytest, per node", summarize([r.engineMsPerNode]), TARGETS.engineMsPerNode));
    }
  }
  if (results.length > 0) {
    const r0 = results[0]!;
    out.notes.push(
      `engine speed: fake model at ${options.latencyMs} ms a reply; pytest ${formatMs(r0.pytestWallPerRun)} wall, ${formatMs(r0.pytestCpuPerRun)} CPU a run (first row); ${availableParallelism()} cores; details: npm run bench:engine`,
    );
  }
  return results;
}

/** The measurements as a markdown table (for the decision record and the full run's output). */
export function renderDetails(results: readonly SpeedResult[]): string {
  const s = (ms: number): string => (ms / 1000).toFixed(1);
  const header = [
    "shape",
    "c",
    "wall s",
    "bound s",
    "critical path s",
    "calls / c s",
    "pytest CPU / cores s",
    "ratio",
    "engine ms/node",
    "run's fixed s",
    "in-node ms/node",
    "engine CPU ms/node (helpers)",
    "pyright CPU ms/node",
    "machine share",
    "in flight",
    "pytest wall / CPU ms a run",
  ];
  const rows = results.map((r) => [
    labelOf(r.shape, r.nodes),
    String(r.concurrency),
    s(r.wall),
    s(r.bound),
    s(r.criticalPath),
    s(r.callsPerSlot),
    s(r.cpuPerCore),
    r.ratio.toFixed(2),
    r.engineMsPerNode.toFixed(0),
    s(r.fixedMs),
    r.inNodeEngineMsPerNode.toFixed(0),
    `${r.engineCpuMsPerNode.toFixed(0)} (${r.helperCpuMsPerNode.toFixed(0)})`,
    r.languageServerCpuMsPerNode.toFixed(0),
    `${(r.machineShare * 100).toFixed(0)}%`,
    r.meanInFlight.toFixed(1),
    `${r.pytestWallPerRun.toFixed(0)} / ${r.pytestCpuPerRun.toFixed(0)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => (i < 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (i < 1 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

function parseList<T>(text: string, parse: (item: string) => T | undefined, what: string): T[] {
  return text.split(",").map((item) => {
    const value = parse(item.trim());
    if (value === undefined) throw new Error(`bad ${what}: ${item}`);
    return value;
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      shapes: { type: "string", default: SHAPES.join(",") },
      concurrency: { type: "string", default: "1,4,16" },
      latency: { type: "string", default: "200" },
      nodes: { type: "string" },
    },
  });
  const options: SpeedOptions = {
    shapes: parseList(values.shapes, (s) => SHAPES.find((shape) => shape === s), "shape (independent, chain, grid)"),
    concurrency: parseList(values.concurrency, (s) => (/^[1-9]\d*$/.test(s) ? Number(s) : undefined), "concurrency"),
    latencyMs: Number(values.latency),
    nodes: values.nodes === undefined ? undefined : Number(values.nodes),
    log: (line) => process.stderr.write(`  ${line}…\n`),
  };
  if (!(options.latencyMs >= 0)) throw new Error(`bad latency: ${values.latency}`);
  if (options.nodes !== undefined && !(Number.isInteger(options.nodes) && options.nodes > 0)) throw new Error(`bad nodes: ${values.nodes}`);
  const rows: Row[] = [];
  const notes: string[] = [];
  const failures = new Set<string>();
  const load = (): string => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`rpg-forge engine speed: node ${process.version}, ${availableParallelism()} cores, load ${load()}\n`);
  const start = now();
  const results = await benchEngineSpeed(options, { rows, notes, fail: (m) => failures.add(m) });
  console.log(renderTable(rows));
  console.log(`\n${renderDetails(results)}`);
  if (notes.length > 0) console.log(`\n${notes.map((note) => `- ${note}`).join("\n")}`);
  console.log(`\nfinished in ${formatMs(now() - start)}, load ${load()}`);
  if (failures.size > 0) {
    console.error(`\nFAILED (functional, not timing):\n${[...failures].map((f) => `  ${f}`).join("\n")}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
