import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { moduleDocstrings, pythonDocstring } from "../assembly/docstrings.js";
import { packageDirectories, testFileLookup } from "../assembly/layout.js";
import type { ModelProvider } from "../llm/provider.js";
import { createRequestKeys } from "../llm/request-keys.js";
import { buildPlan } from "../plan/plan.js";
import type { Rpg } from "../rpg/schema.js";
import { renderGenerationReport } from "../report/generation-report.js";
import { findPython } from "../sandbox/python.js";
import { redactSecrets } from "../redact.js";
import { pluginsFor } from "../sandbox/pytest-plugins.js";
import type { ResourceLimits } from "../sandbox/limits.js";
import { chooseSandbox, runPytest, type PytestResult, type SandboxKind } from "../sandbox/pytest.js";
import { redactPytestResult } from "../sandbox/redact-result.js";
import { ArtifactStore } from "../workspace/artifacts.js";
import { prepareOutputDir, scaffoldPackage, writeOutputFile } from "../workspace/output-dir.js";
import { GitRepository } from "../workspace/git.js";
import { PackageFiles } from "../workspace/package-files.js";
import { BatchedWriter } from "../workspace/batched-writer.js";
import { createWorkTree, defaultWorkTree, removeWorkTree, WORK_TREE_STAMP } from "../workspace/work-tree.js";
import { normalizePath } from "../rpg/paths.js";
import { assemblePackage, type AssemblyResult } from "./assemble.js";
import { checkpointExistsError, readCheckpoint, type Checkpoint } from "./checkpoint.js";
import type { RunEventListener } from "./events.js";
import {
  closurePaths,
  isComplete,
  ownedPaths,
  rpgNameOf,
  runBranch,
  subgraphBranch,
  subgraphCommitMessage,
  subgraphPaths,
  subgraphTag,
} from "./history.js";
import { createTddExecutor } from "./node-machine.js";
import { makeRunId } from "./run-id.js";
import { checkRequestedNodes, runPlan, type RunOptions } from "./run.js";
import { summarize, type RunSummary } from "./summary.js";
import { createTddSetup } from "./tdd-setup.js";

export const CHECKPOINT_PATH = "docs/generation_checkpoint.json";
export const REPORT_PATH = "docs/generation_report.md";
/** What rpg-forge writes in the output by path rather than through PackageFiles: no link may sit on their way. */
const OWN_WRITES = [CHECKPOINT_PATH, REPORT_PATH, "docs/rpg.json", ".rpg-forge/runs", ".rpg-forge/work"];

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
  /** Generate only these subgraphs' nodes (matrix mode); the rest of the checkpoint is left as it is. */
  subgraphs?: string[] | undefined;
  maxIterations?: number | undefined;
  /** Leaves generated at once (default 1); nodes of one file never run together. */
  concurrency?: number | undefined;
  sandbox?: SandboxKind | undefined;
  /** Keep the output as a git repository with a commit and a tag per completed subgraph (default true). */
  git?: boolean | undefined;
  /** Start even when the output repository has uncommitted changes that are not rpg-forge's. */
  allowDirty?: boolean | undefined;
  /** Also give each subgraph a branch rpg/<name>/<subgraph> on top of the branches it needs. */
  branchPerSubgraph?: boolean | undefined;
  /** The commit a subgraph branch that needs no other starts from (default: where the run branch started). */
  branchBase?: string | undefined;
  perTestTimeoutMs?: number | undefined;
  /** Resource limits of the sandboxed tests (docs/security.md); the defaults where not given. */
  limits?: Partial<ResourceLimits> | undefined;
  /** Passed nodes per batch of writes to the output (default 5). */
  batchSize?: number | undefined;
  onEvent?: RunEventListener;
  /** A one-line notice for the user (the sandbox fallback warning). */
  onNotice?: (text: string) => void;
  signal?: AbortSignal;
  clock?: () => number;
}

export interface GenerateResult {
  summary: RunSummary;
  /** The checkpoint as the run left it (in memory: nothing generated code could have touched). */
  checkpoint: Checkpoint;
  interrupted: boolean;
  runId: string;
  reportPath: string;
  checkpointPath: string;
  /** The branch the run committed to; undefined without git. */
  branch: string | undefined;
}

/** Files assembly writes besides the nodes' own, for git to know as rpg-forge's. */
const ASSEMBLED = [
  "pytest.ini",
  "pyproject.toml",
  "README.md",
  "requirements.txt",
  "requirements-dev.txt",
  ".gitignore",
  "test_results.xml",
  "docs/rpg.json",
  CHECKPOINT_PATH,
  REPORT_PATH,
];

/**
 * `generate` for every edge: checks the output and the tools before any work, runs
 * the TDD loop over the plan with a checkpoint after every node, and writes the
 * report. Knows nothing of terminals or GitHub; edges render its events and result.
 */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const outDir = resolve(options.outDir);
  // Every check of the input and the tools comes before the first write, so that bad input
  // leaves the output as it was: no folder made, no git init, no skeleton, no checkpoint.
  const present = existsSync(outDir);
  if (present) await prepareOutputDir(outDir, OWN_WRITES); // a missing output is made once the checks pass
  const plan = buildPlan(options.rpg);
  // Before git's checks: a second plain run should hear "--resume", not "uncommitted changes".
  const checkpointPath = join(outDir, CHECKPOINT_PATH);
  const previous = present && options.mode !== "fresh" ? await readCheckpoint(checkpointPath) : undefined;
  if (options.mode === "new" && previous !== undefined) throw checkpointExistsError(checkpointPath);
  checkRequestedNodes(plan, previous, options);
  const python = await findPython();
  const sandbox = await chooseSandbox(options.sandbox);
  if (sandbox.warning) options.onNotice?.(sandbox.warning);

  const plugins = await pluginsFor(
    python,
    options.rpg.nodes.flatMap((n) => n.requirements ?? []),
  );
  await prepareOutputDir(outDir, OWN_WRITES);
  const testFileOf = testFileLookup(options.rpg);
  const rpgName = rpgNameOf(options.rpg, options.rpgPath);
  const repo =
    options.git === false
      ? undefined
      : await GitRepository.open(outDir, {
          branch: runBranch(rpgName),
          ownPaths: ownedPaths(options.rpg, testFileOf, ASSEMBLED),
          resuming: options.mode !== "new",
          allowDirty: options.allowDirty === true,
          ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        });
  const output = await PackageFiles.open(outDir);
  await scaffoldPackage(output, packageDirectories(options.rpg));
  // Generated code runs in a copy of the output; the output only receives passed nodes' files, in batches.
  const workDir = defaultWorkTree(outDir);
  await createWorkTree(outDir, workDir);
  // Tracked: the engine keeps the bytes of every file it wrote there, ships those, and checks the tree after every gate.
  const files = await PackageFiles.openTracked(workDir, [WORK_TREE_STAMP]);
  // A module starts as its composite's docstring, so the code tested below it is the code that ships:
  // assembly then finds the docstring there and changes nothing in a node's module.
  for (const [rel, docstring] of moduleDocstrings(options.rpg)) {
    if ((await files.read(rel)) === undefined) await files.write(rel, `${pythonDocstring(docstring)}\n`);
  }
  const runId = makeRunId(new Date(started), options.rpgSha256);
  const pytestIn =
    (cwd: string) =>
    async (targets: readonly string[], signal?: AbortSignal): Promise<PytestResult> =>
      // What generated code printed leaves the sandbox here, for prompts, artifacts, test_results.xml and comments.
      redactPytestResult(
        await runPytest({
          cwd,
          targets: [...targets],
          sandbox: sandbox.kind,
          perTestTimeoutMs: options.perTestTimeoutMs,
          limits: options.limits,
          plugins,
          ...(signal ? { signal } : {}),
        }),
      );
  const setup = createTddSetup({
    rpg: options.rpg,
    plan,
    provider: options.provider,
    keys: createRequestKeys(),
    files,
    artifacts: new ArtifactStore(outDir, runId),
    python,
    maxIterations: options.maxIterations,
    runTests: pytestIn(workDir),
  });
  const nodeFiles = (id: string): string[] => {
    const node = plan.nodes.get(id)!;
    return node.node_type === "leaf" ? [normalizePath(node.file_path), testFileOf(id)] : [];
  };
  const runOptions: RunOptions = {
    plan,
    checkpointPath,
    executor: createTddExecutor(setup),
    runId,
    rpgSha256: options.rpgSha256,
    mode: options.mode,
    clock,
    concurrency: options.concurrency,
    filesOf: nodeFiles,
    writer: new BatchedWriter({
      work: files,
      output,
      filesOf: nodeFiles,
      dependsOn: (id) => plan.dependencies.get(id) ?? [],
      batchSize: options.batchSize,
    }),
  };
  if (options.startFromNode !== undefined) runOptions.startFromNode = options.startFromNode;
  if (options.only !== undefined) runOptions.only = options.only;
  if (options.subgraphs !== undefined) {
    const wanted = new Set(options.subgraphs);
    runOptions.scope = plan.subgraphs.filter((s) => wanted.has(s.id)).flatMap((s) => s.nodes);
  }
  if (options.onEvent) runOptions.onEvent = options.onEvent;
  if (options.signal) runOptions.signal = options.signal;
  const committed = new Set<string>();
  const visited = new Set(runOptions.scope ?? plan.order);
  const byId = new Map(plan.subgraphs.map((s) => [s.id, s]));
  const commitCompleted = async (checkpoint: Checkpoint): Promise<void> => {
    if (!repo) return;
    // A dependency is settled once committed, or when this run will not complete it
    // (matrix mode: a subgraph of another job whose nodes did not pass).
    const settled = (dep: string): boolean =>
      committed.has(dep) || (!isComplete(byId.get(dep)!, checkpoint) && !byId.get(dep)!.nodes.some((id) => visited.has(id)));
    // In wave order, and only after what a subgraph depends on: history then reads
    // like the plan, each commit holding code whose imports are already committed.
    for (const subgraph of plan.subgraphs) {
      if (committed.has(subgraph.id) || !isComplete(subgraph, checkpoint)) continue;
      if (!subgraph.dependsOn.every(settled)) continue;
      committed.add(subgraph.id);
      if (!subgraph.nodes.some((id) => checkpoint.nodes[id]?.status === "passed")) continue;
      const tag = subgraphTag(runId, subgraph.id);
      const pathsOf = (s: typeof subgraph): string[] => subgraphPaths(s, plan, options.rpg, checkpoint, testFileOf, CHECKPOINT_PATH);
      const message = subgraphCommitMessage(subgraph);
      const sha = await repo.commitPaths(pathsOf(subgraph), message, tag);
      let branch: string | undefined;
      if (options.branchPerSubgraph) {
        branch = subgraphBranch(rpgName, subgraph.id);
        const own = await repo.branchHead(branch);
        const needs = (await Promise.all(subgraph.dependsOn.map((dep) => repo.branchHead(subgraphBranch(rpgName, dep))))).filter(
          (s): s is string => s !== undefined,
        );
        const parents = [...new Set([...(own ? [own] : []), ...needs])];
        const base = options.branchBase ?? repo.base;
        const moved = await repo.commitToBranch(
          branch,
          parents.length > 0 ? parents : [base],
          closurePaths(subgraph, plan, pathsOf),
          message,
        );
        if (!moved) branch = undefined;
      }
      if (sha || branch)
        options.onEvent?.({
          type: "subgraph-committed",
          subgraphId: subgraph.id,
          ...(sha ? { sha, tag } : {}),
          ...(branch ? { branch } : {}),
        });
    }
  };
  runOptions.afterNode = (_id, checkpoint) => commitCompleted(checkpoint);
  let assembly: AssemblyResult | undefined;
  let run: Awaited<ReturnType<typeof runPlan>>;
  try {
    run = await runPlan(runOptions);
    if (!run.interrupted) await commitCompleted(run.checkpoint);
    // An interrupted run assembles nothing: the package is finished by the resume.
    if (!run.interrupted) {
      assembly = await assemblePackage({
        rpg: options.rpg,
        checkpoint: run.checkpoint,
        files: output,
        python,
        runId,
        model: options.model,
        generatedAt: new Date(clock()),
        // The whole suite runs once more, in a fresh copy of the assembled output: generated code never runs in the output.
        runTests: async (targets) => {
          await createWorkTree(outDir, workDir);
          return pytestIn(workDir)(targets);
        },
      });
      for (const warning of assembly.warnings) options.onNotice?.(warning);
    }
  } finally {
    await removeWorkTree(workDir);
  }
  const { checkpoint, interrupted } = run;
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
    gitLog: repo ? await repo.log() : undefined,
    // The commit below holds the report: its history must end on that commit, though it cannot know its hash.
    finalCommit: repo && assembly ? "chore: assemble the package and its report" : undefined,
  });
  await writeOutputFile(outDir, REPORT_PATH, redactSecrets(report));
  if (repo && assembly)
    await repo.commitPaths([...new Set([...assembly.written, CHECKPOINT_PATH, REPORT_PATH])], "chore: assemble the package and its report");
  return { summary, checkpoint, interrupted, runId, reportPath: join(outDir, REPORT_PATH), checkpointPath, branch: repo?.branch };
}
