import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { moduleDocstrings, pythonDocstring } from "../assembly/docstrings.js";
import { integrationTestFiles, packageDirectories, testFileLookup } from "../assembly/layout.js";
import type { ModelProvider } from "../llm/provider.js";
import type { ReviewerNote } from "../llm/requests/node-context.js";
import { createRequestKeys } from "../llm/request-keys.js";
import { buildPlan, type Plan } from "../plan/plan.js";
import type { Rpg } from "../rpg/schema.js";
import type { DependencyCheck } from "../record/dependency-check.js";
import { findPython, findPythonSetup } from "../sandbox/python.js";
import { redactSecrets } from "../redact.js";
import { pluginsFor } from "../sandbox/pytest-plugins.js";
import { measureCoverage, probeCoverage } from "../sandbox/coverage.js";
import type { ResourceLimits } from "../sandbox/limits.js";
import { chooseSandbox, runGate, runPytest, type PytestResult, type SandboxKind } from "../sandbox/pytest.js";
import { redactPytestResult } from "../sandbox/redact-result.js";
import { ArtifactStore } from "../workspace/artifacts.js";
import { existingFiles, prepareOutputDir, scaffoldPackage, writeOutputFile } from "../workspace/output-dir.js";
import { GitRepository } from "../workspace/git.js";
import { PackageFiles } from "../workspace/package-files.js";
import { BatchedWriter } from "../workspace/batched-writer.js";
import { buildStack, type StackResult } from "../workspace/stack.js";
import { createWorkTree, defaultWorkTree, removeWorkTree, WORK_TREE_STAMP } from "../workspace/work-tree.js";
import { normalizePath } from "../rpg/paths.js";
import { checkpointExistsError, type Checkpoint } from "./checkpoint.js";
import { CheckpointStore } from "./checkpoint-journal.js";
import type { RunEventListener } from "./events.js";
import { ownedPaths } from "./history.js";
import { rpgNameOf } from "../record/branch-names.js";
import { runBranch, workBranch } from "../record/branch-names.js";
import { runLevels, stackOwnedPaths } from "./pr-stack.js";
import { createTddExecutor } from "./node-machine.js";
import { makeRunId } from "./run-id.js";
import { checkRequestedNodes, runPlan, type RunOptions } from "./run.js";
import { ASSEMBLED, CHECKPOINT_PATH, REPORT_PATH, TEST_RESULTS_PATH } from "./output-paths.js";
import { buildSnapshot, writeSnapshot, type Snapshot } from "./snapshot.js";
import type { AssemblyResult } from "./assemble.js";
import { DependencyCheckStep } from "./dependency-check-step.js";
import { SubgraphCommits } from "./subgraph-commits.js";
import { summarize, type RunSummary } from "../record/summary.js";
import { createTddSetup } from "./tdd-setup.js";
import { IntegrationTests } from "./integration-tests.js";
import { limitRequests, pipelineFor } from "./pipelining.js";
import { startCodeIntelligence } from "./run-intelligence.js";
import { FixLocalization } from "./fix-context.js";
import { verifyFolder } from "./verify-folder.js";

/** What rpg-forge writes in the output by path rather than through PackageFiles: no link may sit on their way. */
const OWN_WRITES = [
  CHECKPOINT_PATH,
  REPORT_PATH,
  TEST_RESULTS_PATH,
  "docs/rpg.json",
  ".rpg-forge/runs",
  ".rpg-forge/work",
  ".rpg-forge/verify",
];

/** What the committed report of a state is rendered from: that state alone, nothing that changes with every run. */
export interface CommittedReportInput {
  plan: Plan;
  /** The checkpoint as the snapshot holds it. */
  checkpoint: Checkpoint;
  summary: RunSummary;
  rpgPath: string;
  model: string;
  assembly: AssemblyResult;
}

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
  /**
   * A revise: `only`'s nodes are regenerated with these reviewer notes (by node id) in their prompts, and a
   * passed node whose new version fails its tests keeps the version that was reviewed.
   */
  revise?: { notes: ReadonlyMap<string, readonly ReviewerNote[]> } | undefined;
  /** Generate only these subgraphs' nodes (matrix mode); the rest of the checkpoint is left as it is. */
  subgraphs?: string[] | undefined;
  maxIterations?: number | undefined;
  /** How many times a failing gate is diagnosed (decision 0020); 5 when undefined. */
  diagnosisVotes?: number | undefined;
  /** Mutants of each passed node's code to run its tests against (decision 0022); 3 when undefined, 0 for none. */
  mutants?: number | undefined;
  /** Review each node's passing code against its docstring before it passes (decision 0027); default false. */
  review?: boolean | undefined;
  /** Integration tests per subgraph once its leaves have all passed (decision 0024); default true. */
  integrationTests?: boolean | undefined;
  /** Model requests in flight (default 1: one node at a time); above 1, nodes side by side, a pytest run per core (decision 0029). */
  concurrency?: number | undefined;
  sandbox?: SandboxKind | undefined;
  /** Keep the output as a git repository with a commit and a tag per completed subgraph (default true). */
  git?: boolean | undefined;
  /** Start even when the output repository has uncommitted changes that are not rpg-forge's. */
  allowDirty?: boolean | undefined;
  /** Also stack the subgraphs' snapshots as PR branches rpg/<name>/<subgraph> (with `subgraphs`, matrix mode: work branches rpg-work/<name>/<subgraph>). */
  branchPerSubgraph?: boolean | undefined;
  /** The commit a subgraph branch that needs no other starts from (default: where the run branch started). */
  branchBase?: string | undefined;
  perTestTimeoutMs?: number | undefined;
  /** Resource limits of the sandboxed tests (docs/security.md); the defaults where not given. */
  limits?: Partial<ResourceLimits> | undefined;
  /**
   * Code intelligence from pyright-langserver for the debug loop and the dependency check (decision 0028); Python's
   * parser answers without it. Default: on when the pyright package resolves (not from the Action's bundle).
   */
  languageServer?: boolean | undefined;
  /** Fix requests offer the localization tools as model tool calls (decision 0030); default true. */
  fixTools?: boolean | undefined;
  /** Passed nodes per batch of writes to the output (default 5). */
  batchSize?: number | undefined;
  /**
   * Renders docs/generation_report.md as every snapshot commits it; the engine redacts what it returns. The edges
   * pass report/'s committedReport: rendering is theirs, the engine only knows where the text goes.
   */
  renderCommittedReport: (input: CommittedReportInput) => string;
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
  /** The plan the run followed. */
  plan: Plan;
  /** When the run's work was done, by the run's clock, and how long it took: the run's own report shows both. */
  finishedAt: Date;
  elapsedMs: number;
  /** What assembly did to the final snapshot; undefined for an interrupted run. */
  assembly: AssemblyResult | undefined;
  /** The run branch's commits, newest first (`git log --format="%h %s%d"`); undefined without git. */
  gitLog: string[] | undefined;
  checkpointPath: string;
  /** The branch the run committed to; undefined without git. */
  branch: string | undefined;
  /** The PR branches (branchPerSubgraph): one level per subgraph with a passed node, in merge order. */
  stack?: StackResult | undefined;
}

/**
 * `generate` for every edge: checks the output and the tools before any work, and runs
 * the TDD loop over the plan with a checkpoint after every node. Knows nothing of
 * terminals, GitHub or reports; edges render its events and result (the run's report
 * with report/'s writeRunReport).
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
  const previous = present && options.mode !== "fresh" ? await new CheckpointStore(checkpointPath).read() : undefined;
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
  // A file at a module's path that the output held before the run may be a person's: a snapshot removes it only when
  // nothing but rpg-forge's code (of nodes done later) is in it, as after a rollback.
  const preexisting = await existingFiles(outDir);
  const testFileOf = testFileLookup(options.rpg);
  const rpgName = rpgNameOf(options.rpg, resolve(options.rpgPath));
  const repo =
    options.git === false
      ? undefined
      : await GitRepository.open(outDir, {
          branch: runBranch(rpgName),
          ownPaths: ownedPaths(options.rpg, testFileOf, [...ASSEMBLED, TEST_RESULTS_PATH]),
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
  // Started now, waited for when first needed (a fix, the dependency check): the server reads the tree meanwhile.
  const intelligence = startCodeIntelligence({ root: workDir, python, server: options.languageServer, onNotice: options.onNotice });
  /** The checkpoint as the run has it (the previous run's until the first node settles): whose nodes failed. */
  let latest: Checkpoint | undefined = previous;
  // Every run of generated code, gate or measure, in the same sandbox under the same limits.
  const gate = { sandbox: sandbox.kind, perTestTimeoutMs: options.perTestTimeoutMs, limits: options.limits, plugins };
  // Above a concurrency of 1, the endpoint gets `concurrency` requests at once and each core one pytest run (decision 0029).
  const pipeline = pipelineFor(options.concurrency ?? 1);
  const pytestSlot = <T>(run: () => Promise<T>, signal?: AbortSignal): Promise<T> =>
    pipeline.pytestRuns ? pipeline.pytestRuns.use(run, signal) : run();
  const pytestIn =
    (cwd: string) =>
    async (targets: readonly string[], signal?: AbortSignal): Promise<PytestResult> =>
      // What generated code printed leaves the sandbox here, for prompts, artifacts, test_results.xml and comments.
      redactPytestResult(await pytestSlot(() => runPytest({ ...gate, cwd, targets: [...targets], ...(signal ? { signal } : {}) }), signal));
  const setup = createTddSetup({
    rpg: options.rpg,
    plan,
    provider: pipeline.requests ? limitRequests(options.provider, pipeline.requests) : options.provider,
    keys: createRequestKeys(),
    files,
    artifacts: new ArtifactStore(outDir, runId),
    python,
    maxIterations: options.maxIterations,
    diagnosisVotes: options.diagnosisVotes,
    mutants: options.mutants,
    review: options.review,
    fixTools: options.fixTools,
    runTests: pytestIn(workDir),
    runMutants: async (targets, file, sources, signal) =>
      redactPytestResult(
        await pytestSlot(() => runGate({ ...gate, cwd: workDir, targets: [...targets], signal }, { mutants: { file, sources } }), signal),
      ),
    measureCoverage: (targets, file, ranges, signal) =>
      pytestSlot(() => measureCoverage({ ...gate, cwd: workDir, targets: [...targets], file, ranges, signal }), signal),
    // Once per interpreter (cached): without coverage.py a node's note needs neither its lines nor a run.
    coverageMissing: async () => {
      const probe = await probeCoverage(await findPythonSetup());
      return probe.ok ? undefined : probe.note;
    },
    notes: options.revise?.notes,
    localization: new FixLocalization({
      rpg: options.rpg,
      root: workDir,
      python,
      intelligence: intelligence.get,
      statuses: () => new Map(Object.entries(latest?.nodes ?? {}).map(([id, entry]) => [id, entry.status])),
    }),
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
    concurrency: pipeline.nodesInFlight,
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
  if (options.revise !== undefined) runOptions.keepPassedOnFailure = true;
  if (options.subgraphs !== undefined) {
    const wanted = new Set(options.subgraphs);
    runOptions.scope = plan.subgraphs.filter((s) => wanted.has(s.id)).flatMap((s) => s.nodes);
  }
  if (options.signal) runOptions.signal = options.signal;
  const visited = new Set(runOptions.scope ?? plan.order);
  const dependencies = new DependencyCheckStep({
    settled: (checkpoint) =>
      [...visited].every((id) => ["passed", "failed", "skipped"].includes(checkpoint.nodes[id]?.status ?? "pending")),
    filesOf: nodeFiles,
    tell: (paths) => intelligence.filesChanged(paths),
    check: () => intelligence.checkDependencies(options.rpg),
  });
  runOptions.onEvent = (event) => {
    if (event.type === "node-finished") dependencies.nodeSettled(event.nodeId);
    options.onEvent?.(event);
  };
  const verify = verifyFolder(outDir, pytestIn);
  if (options.integrationTests !== false) {
    const integrationFiles = integrationTestFiles(options.rpg);
    const integration = new IntegrationTests({
      setup,
      plan,
      visited,
      testFileOf: (id) => integrationFiles.get(id)!,
      // Against the output, which holds passed code only: the code the subgraph's commit holds.
      runTests: verify.runTests,
      ship: async (path, content) => {
        if (content !== null) await output.write(path, content);
        else if ((await output.read(path)) !== undefined) await output.remove(path);
      },
      onEvent: options.onEvent,
    });
    runOptions.checkSubgraphs = (checkpoint, signal, unannounced) => {
      dependencies.startWhenSettled(checkpoint, unannounced);
      return integration.testCompleted(checkpoint, signal, unannounced);
    };
  }
  const snapshotOf = async (subgraphs: ReadonlySet<string>, checkpoint: Checkpoint) =>
    buildSnapshot({
      rpg: options.rpg,
      plan,
      checkpoint,
      output,
      subgraphs,
      python,
      model: options.model,
      testFileOf,
      preexisting,
      // A snapshot's suite runs in a fresh copy of the output with the snapshot laid over it: generated code never runs in the output.
      runTests: verify.runTests,
      renderReport: (projected, assembly) =>
        redactSecrets(
          options.renderCommittedReport({
            plan,
            checkpoint: projected,
            summary: summarize(projected),
            rpgPath: options.rpgPath,
            model: options.model,
            assembly,
          }),
        ),
    });
  const history = new SubgraphCommits({ plan, repo, runId, visited, snapshotOf, onEvent: options.onEvent, onNotice: options.onNotice });
  /** The dependency check of the work tree's code, in the checkpoint and told. */
  const recordDependencies = (checkpoint: Checkpoint, check: DependencyCheck | undefined): void => {
    if (!check) return;
    const { via, ...recorded } = check;
    checkpoint.dependency_check = recorded;
    // Which implementation answered is the machine's, not the package's: told, never recorded.
    const { target, planned, confirmed, share, meetsTarget } = recorded;
    options.onEvent?.({ type: "dependency-checked", via, target, planned, confirmed, share, meetsTarget });
  };
  runOptions.afterNode = async (id, checkpoint, unannounced) => {
    latest = checkpoint;
    // The node's files as it left them (its code, or restored): what the language server reads next.
    await dependencies.tellNodes([id]);
    // Before the last commit, so that the report it holds has the check. Once: the nodes skipped for a failed
    // dependency settle as it fails, so more than one node can be the last to settle.
    recordDependencies(checkpoint, await dependencies.result(checkpoint));
    await history.commitCompleted(checkpoint, unannounced);
  };
  let final: Snapshot | undefined;
  let run: Awaited<ReturnType<typeof runPlan>>;
  try {
    run = await runPlan(runOptions);
    // An interrupted run assembles nothing: the package is finished by the resume.
    if (!run.interrupted) {
      // A run with no node left to run (a resume of a finished one) checks here; so does one whose check failed.
      if (!run.checkpoint.dependency_check) recordDependencies(run.checkpoint, await dependencies.atRunEnd());
      final = await history.finish(run.checkpoint);
      for (const warning of final.assembly.warnings) options.onNotice?.(warning);
      await writeSnapshot(output, final.files);
      if (final.assembly.junitXml) await writeOutputFile(outDir, TEST_RESULTS_PATH, final.assembly.junitXml);
    }
  } finally {
    await dependencies.finished();
    await intelligence.close();
    await removeWorkTree(workDir);
    await verify.remove();
  }
  const { checkpoint, interrupted } = run;
  const summary = summarize(checkpoint);
  // For the run's own report: what changes on every run (timings, history), taken before the PR branches are built.
  const finished = clock();
  const gitLog = repo ? await repo.log() : undefined;
  let stack: StackResult | undefined;
  const hasPassed = (subgraphId: string): boolean =>
    plan.subgraphs.find((s) => s.id === subgraphId)!.nodes.some((id) => checkpoint.nodes[id]?.status === "passed");
  if (repo && options.branchPerSubgraph && !interrupted && options.subgraphs) {
    // Matrix mode: each job's work branch holds everything the job had, for the next waves and the report job to build on.
    const head = await repo.head();
    for (const { subgraphId } of history.commits)
      if (options.subgraphs.includes(subgraphId) && hasPassed(subgraphId)) await repo.pointBranch(workBranch(rpgName, subgraphId), head);
  } else if (repo && options.branchPerSubgraph && !interrupted) {
    const base = options.branchBase ?? repo.base;
    stack = await buildStack({
      dir: outDir,
      base,
      levels: runLevels(plan, rpgName, history.commits, hasPassed),
      owned: await stackOwnedPaths(outDir, base, options.rpg),
    });
  }
  return {
    summary,
    checkpoint,
    interrupted,
    runId,
    plan,
    finishedAt: new Date(finished),
    elapsedMs: finished - started,
    assembly: final?.assembly,
    gitLog,
    checkpointPath,
    branch: repo?.branch,
    stack,
  };
}
