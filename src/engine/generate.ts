import { join, resolve } from "node:path";
import { packageDirectories } from "../assembly/layout.js";
import type { ModelProvider } from "../llm/provider.js";
import { createRequestKeys } from "../llm/request-keys.js";
import { buildPlan } from "../plan/plan.js";
import type { Rpg } from "../rpg/schema.js";
import { renderGenerationReport } from "../report/generation-report.js";
import { findPython } from "../sandbox/python.js";
import { pluginsFor } from "../sandbox/pytest-plugins.js";
import { chooseSandbox, runPytest, type SandboxKind } from "../sandbox/pytest.js";
import { ArtifactStore } from "../workspace/artifacts.js";
import { prepareOutputDir, scaffoldPackage, writeOutputFile } from "../workspace/output-dir.js";
import { PackageFiles } from "../workspace/package-files.js";
import { assemblePackage, type AssemblyResult } from "./assemble.js";
import type { RunEventListener } from "./events.js";
import { createTddExecutor } from "./node-machine.js";
import { makeRunId } from "./run-id.js";
import { runPlan, type RunOptions } from "./run.js";
import { summarize, type RunSummary } from "./summary.js";
import { createTddSetup } from "./tdd-setup.js";

export const CHECKPOINT_PATH = "docs/generation_checkpoint.json";
export const REPORT_PATH = "docs/generation_report.md";

export interface GenerateOptions {
  rpg: Rpg;
  rpgPath: string;
  rpgSha256: string;
  outDir: string;
  provider: ModelProvider;
  model: string;
  mode: RunOptions["mode"];
  startFromNode?: string | undefined;
  only?: string[] | undefined;
  maxIterations?: number | undefined;
  sandbox?: SandboxKind | undefined;
  perTestTimeoutMs?: number | undefined;
  onEvent?: RunEventListener;
  /** A one-line notice for the user (the sandbox fallback warning). */
  onNotice?: (text: string) => void;
  signal?: AbortSignal;
  clock?: () => number;
}

export interface GenerateResult {
  summary: RunSummary;
  interrupted: boolean;
  runId: string;
  reportPath: string;
  checkpointPath: string;
}

/**
 * `generate` for every edge: checks the output and the tools before any work, runs
 * the TDD loop over the plan with a checkpoint after every node, and writes the
 * report. Knows nothing of terminals or GitHub; edges render its events and result.
 */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const outDir = resolve(options.outDir);
  await prepareOutputDir(outDir);
  const python = await findPython();
  const sandbox = await chooseSandbox(options.sandbox);
  if (sandbox.warning) options.onNotice?.(sandbox.warning);

  const plugins = await pluginsFor(
    python,
    options.rpg.nodes.flatMap((n) => n.requirements ?? []),
  );
  const plan = buildPlan(options.rpg);
  const files = await PackageFiles.open(outDir);
  await scaffoldPackage(files, packageDirectories(options.rpg));
  const runId = makeRunId(new Date(started), options.rpgSha256);
  const setup = createTddSetup({
    rpg: options.rpg,
    plan,
    provider: options.provider,
    keys: createRequestKeys(),
    files,
    artifacts: new ArtifactStore(outDir, runId),
    python,
    maxIterations: options.maxIterations,
    runTests: (targets, signal) =>
      runPytest({ cwd: outDir, targets: [...targets], sandbox: sandbox.kind, perTestTimeoutMs: options.perTestTimeoutMs, signal, plugins }),
  });
  const checkpointPath = join(outDir, CHECKPOINT_PATH);
  const runOptions: RunOptions = {
    plan,
    checkpointPath,
    executor: createTddExecutor(setup),
    runId,
    rpgSha256: options.rpgSha256,
    mode: options.mode,
    clock,
  };
  if (options.startFromNode !== undefined) runOptions.startFromNode = options.startFromNode;
  if (options.only !== undefined) runOptions.only = options.only;
  if (options.onEvent) runOptions.onEvent = options.onEvent;
  if (options.signal) runOptions.signal = options.signal;
  const { checkpoint, interrupted } = await runPlan(runOptions);

  // An interrupted run assembles nothing: the package is finished by the resume.
  let assembly: AssemblyResult | undefined;
  if (!interrupted) {
    assembly = await assemblePackage({
      rpg: options.rpg,
      checkpoint,
      files,
      python,
      runId,
      model: options.model,
      generatedAt: new Date(clock()),
      runTests: (targets) =>
        runPytest({ cwd: outDir, targets: [...targets], sandbox: sandbox.kind, perTestTimeoutMs: options.perTestTimeoutMs, plugins }),
    });
    for (const warning of assembly.warnings) options.onNotice?.(warning);
  }
  const summary = summarize(checkpoint);
  const report = renderGenerationReport({
    plan,
    checkpoint,
    summary,
    rpgPath: options.rpgPath,
    runId,
    model: options.model,
    generatedAt: new Date(clock()),
    elapsedMs: clock() - started,
    assembly,
  });
  await writeOutputFile(outDir, REPORT_PATH, report);
  return { summary, interrupted, runId, reportPath: join(outDir, REPORT_PATH), checkpointPath };
}
