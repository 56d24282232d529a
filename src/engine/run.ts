import { RpgForgeError } from "../errors.js";
import { redactDeep } from "../redact.js";
import type { Plan } from "../plan/plan.js";
import { checkpointExistsError, setCheckpointAside, type Checkpoint, type CheckpointEntry } from "./checkpoint.js";
import type { NodeExecutor, NodeOutcome, RunEvent, RunEventListener } from "./events.js";
import type { FlushResult } from "../workspace/batched-writer.js";
import { isComplete } from "./history.js";
import { CheckpointStore } from "./checkpoint-journal.js";
import { Scheduler, type Admission } from "./scheduler.js";
import { blockersOf, newCheckpoint, prepareResume, skipDownstream } from "./state.js";

/** Where passed nodes' files go: buffered, and written to the output in batches (workspace/batched-writer.ts). */
export interface NodeWriter {
  readonly pending: readonly string[];
  /** Adds a passed node; true when the batch is full. */
  stage(nodeId: string): boolean;
  flush(): Promise<FlushResult>;
}

export interface RunOptions {
  plan: Plan;
  checkpointPath: string;
  executor: NodeExecutor;
  runId: string;
  rpgSha256: string;
  /**
   * new: refuse to overwrite an existing checkpoint. resume: continue from it (a
   * missing one starts afresh, a corrupt one is an error). fresh: set any existing
   * checkpoint aside, then start afresh.
   */
  mode: "new" | "resume" | "fresh";
  /** Start at this node of the order; nodes before it are left as the checkpoint has them. */
  startFromNode?: string;
  /** Regenerate exactly these nodes (passed ones too), in plan order; everything else is left as it is. */
  only?: readonly string[];
  /** Where the checkpoint's journal goes (default: journalPathFor(checkpointPath)). */
  journalPath?: string;
  /** With `only`: a passed node whose new attempt fails keeps its passed entry (a revise never loses reviewed code). */
  keepPassedOnFailure?: boolean;
  /**
   * Visit only these nodes (a subgraph's, in matrix mode); everything else is left as
   * it is. Unlike `only`, passed nodes stay passed, and a node whose dependencies did
   * not pass is skipped rather than refused.
   */
  scope?: readonly string[];
  onEvent?: RunEventListener;
  signal?: AbortSignal;
  /** Milliseconds since the epoch; injected so tests control time. */
  clock?: () => number;
  /** Progress is reported every this many finished nodes. */
  progressEvery?: number;
  /** How many leaves may be generated at once (default 1); nodes sharing a file never run together. */
  concurrency?: number;
  /** The files a node writes (its module and tests), so that two nodes on one file never run at once. */
  filesOf?: (nodeId: string) => readonly string[];
  /**
   * Called, and awaited, after each node's outcome is in the checkpoint, its batch (if due) is
   * written and its line is out: where history is written. With several nodes at once, other
   * nodes' outcomes may be in the checkpoint before their lines: `unannounced` holds them.
   */
  afterNode?: (nodeId: string, checkpoint: Checkpoint, unannounced: ReadonlySet<string>) => Promise<void>;
  /**
   * Checks complete subgraphs (their integration tests, decision 0024): in a node's bookkeeping, after its line and
   * before `afterNode` commits, and once more at the end of a run that was not interrupted (a resume may find a
   * subgraph complete with no node left to run). Returns the subgraphs whose records changed, for the journal.
   */
  checkSubgraphs?: (checkpoint: Checkpoint, signal: AbortSignal, unannounced: ReadonlySet<string>) => Promise<readonly string[]>;
  /**
   * Buffers passed nodes' files and writes them after every batch, when a subgraph
   * completes, and when the run stops. Without one, the executor's writes are final.
   */
  writer?: NodeWriter;
}

export interface RunResult {
  checkpoint: Checkpoint;
  interrupted: boolean;
}

/**
 * Walks the plan in order, hands each leaf to the executor and records every outcome
 * in the checkpoint, which is written after each node so that a crash at any moment
 * leaves a checkpoint a resume can use. A failed node is a result: its downstream
 * nodes are skipped and the run goes on.
 */
export async function runPlan(options: RunOptions): Promise<RunResult> {
  const { plan, executor, runId } = options;
  const clock = options.clock ?? Date.now;
  const emit = (event: RunEvent): void => options.onEvent?.(event);
  const iso = (): string => new Date(clock()).toISOString();
  const signal = options.signal ?? new AbortController().signal;
  const started = clock();

  const store = new CheckpointStore(options.checkpointPath, options.journalPath);
  const { checkpoint, resumed } = await openCheckpoint(options, store, iso());
  if (resumed) {
    // A check of the code of an earlier run: this run changes the code, and checks it again when it ends.
    delete checkpoint.dependency_check;
    // Killed before their batch was written: the checkpoint says passed, the output lacks their files.
    const unwritten = (checkpoint.pending_writes ?? []).filter((id) => checkpoint.nodes[id]?.status === "passed");
    for (const id of unwritten) Object.assign(checkpoint.nodes[id]!, { status: "pending", timestamp: iso() });
    delete checkpoint.pending_writes;
    if (unwritten.length > 0) emit({ type: "nodes-reset", nodeIds: unwritten, reason: "not-written" });
  }
  const scope = options.scope ? new Set(options.scope) : undefined;
  const range = (
    options.only ? onlyRange(options.only, plan, checkpoint) : plan.order.slice(startIndexOf(options.startFromNode, plan, checkpoint))
  ).filter((id) => !scope || scope.has(id));
  /** The passed entries a failed revision returns to. */
  const reviewed = new Map<string, CheckpointEntry>();
  if (options.only) {
    for (const id of range) {
      const entry = checkpoint.nodes[id]!;
      if (options.keepPassedOnFailure && entry.status === "passed") reviewed.set(id, structuredClone(entry));
      entry.status = "pending";
    }
  }
  if (resumed) {
    const { specChanged, dropped } = prepareResume(checkpoint, plan, range, runId, iso());
    checkpoint.rpg_sha256 = options.rpgSha256;
    if (specChanged.length > 0) emit({ type: "nodes-reset", nodeIds: specChanged, reason: "spec-changed" });
    if (dropped.length > 0) emit({ type: "nodes-reset", nodeIds: dropped, reason: "not-in-rpg" });
  }
  const work = range.filter((id) => checkpoint.nodes[id]!.status !== "passed");
  const inWork = new Set(work);
  emit({ type: "run-started", runId, total: plan.order.length, toRun: work.length, resumed });

  /** Journals the entries of `ids` (and the checkpoint's own fields): a node's write costs its entry, not the graph's. */
  const save = (...ids: readonly string[]): Promise<void> => {
    checkpoint.updated_at = iso();
    return store.record(checkpoint, ids);
  };
  /** Writes the checkpoint whole and starts its journal afresh. */
  const saveWhole = (): Promise<void> => {
    checkpoint.updated_at = iso();
    return store.compact(checkpoint);
  };
  // Whole once at the start: the resets above touched any number of entries.
  await saveWhole();

  const writer = options.writer;
  const flush = async (): Promise<void> => {
    if (!writer || writer.pending.length === 0) return;
    const result = await writer.flush();
    const now = iso();
    for (const { nodeId, reason } of result.failed) {
      const entry = checkpoint.nodes[nodeId]!;
      Object.assign(entry, { status: "failed", timestamp: now, failure_reason: `write failed: ${reason}` });
      const attempt = entry.attempts.at(-1);
      if (attempt) Object.assign(attempt, { status: "failed", failure_reason: entry.failure_reason });
    }
    // Blocked nodes passed their tests but import a node that is not there; skipDownstream names the failed root.
    for (const nodeId of result.blocked) checkpoint.nodes[nodeId]!.status = "skipped";
    const skipped = result.failed.flatMap(({ nodeId }) => skipDownstream(nodeId, plan, checkpoint, now));
    awaitLines(skipped);
    delete checkpoint.pending_writes;
    await save(...result.failed.map((f) => f.nodeId), ...result.blocked, ...skipped);
    emit({
      type: "batch-written",
      nodeIds: result.written,
      files: result.files,
      failed: result.failed.map(({ nodeId, reason }) => ({ nodeId, reason })),
      blocked: result.blocked,
    });
  };
  const flushDue = (full: boolean): boolean =>
    full ||
    plan.subgraphs.some((subgraph) => writer!.pending.some((id) => subgraph.nodes.includes(id)) && isComplete(subgraph, checkpoint));

  let done = 0;
  let interrupted = false;
  let batchFull = false;
  const filesOf = (id: string): readonly string[] => options.filesOf?.(id) ?? [plan.nodes.get(id)!.file_path];
  /** When each node was admitted: its duration runs from there. */
  const since = new Map<string, number>();
  /** A node's line, once its outcome is final (a write that fails makes a passed node failed). */
  const announce = (nodeId: string): void => {
    const entry = checkpoint.nodes[nodeId]!;
    done++;
    const status = entry.status as "passed" | "failed" | "skipped";
    const event: RunEvent = { type: "node-finished", nodeId, status, durationMs: clock() - since.get(nodeId)! };
    if (entry.failure_reason !== undefined && status !== "passed") event.reason = entry.failure_reason;
    if (entry.blocked_by) event.blockedBy = entry.blocked_by;
    if (status !== "skipped" && entry.node_type !== "composite")
      Object.assign(event, { iterations: entry.retry_count, tokens: entry.tokens?.total ?? 0 });
    emit(event);
    const every = options.progressEvery ?? 10;
    if (done % every === 0 || done === work.length) {
      const elapsedMs = clock() - started;
      emit({ type: "progress", done, total: work.length, elapsedMs, etaMs: Math.round((elapsedMs / done) * (work.length - done)) });
    }
  };
  /** Nodes whose outcome is in the checkpoint but whose line is not out yet. */
  const unannounced = new Set<string>();
  /** Skipped ahead of their turn: their lines come when the scheduler reaches them. */
  const awaitLines = (ids: readonly string[]): void => {
    for (const id of ids) if (inWork.has(id)) unannounced.add(id);
  };
  /** A settled node's bookkeeping, one at a time: the batch write it makes due, its line, then history. */
  const finished = async (nodeId: string): Promise<void> => {
    // Before history: a subgraph is committed from the output, so its files must be there. The write
    // waits only for the nodes running on the files it writes; the others go on.
    if (writer && writer.pending.length > 0 && flushDue(batchFull)) {
      batchFull = false;
      await scheduler.hold(pendingFiles, flush);
    }
    announce(nodeId);
    unannounced.delete(nodeId);
    await checkSubgraphs();
    await options.afterNode?.(nodeId, checkpoint, unannounced);
  };
  const checkSubgraphs = async (): Promise<void> => {
    const changed = (await options.checkSubgraphs?.(checkpoint, signal, unannounced)) ?? [];
    if (changed.length === 0) return;
    checkpoint.updated_at = iso();
    await store.record(checkpoint, [], changed);
  };
  /** The files the buffered nodes' write puts in the output, asked whenever the scheduler checks (more may pass meanwhile). */
  const pendingFiles = (): ReadonlySet<string> => new Set(writer?.pending.flatMap((id) => filesOf(id)) ?? []);
  const scheduler = new Scheduler(
    { order: work, dependenciesOf: (id) => plan.dependencies.get(id) ?? [], filesOf },
    { admit, execute: (id) => execute(id, checkpoint.nodes[id]!, since.get(id)!), settled: finished },
    options.concurrency ?? 1,
  );

  try {
    await scheduler.run();
  } catch (error) {
    // A run-level error still writes what passed, and the checkpoint whole (best effort: the error at hand is the one to report).
    await flush().catch(() => undefined);
    await store.compact(checkpoint).catch(() => store.close().catch(() => undefined));
    throw error;
  }
  await flush();
  if (!interrupted && !signal.aborted) await checkSubgraphs();
  // Whole again at the end: what a commit, `status` or the next run reads is one file.
  await saveWhole();
  emit({ type: "run-finished", interrupted, elapsedMs: clock() - started });
  return { checkpoint, interrupted };

  /**
   * What a ready node needs (scheduler.ts starts it): a node skipped earlier in this run, or blocked
   * by a dependency that did not pass, is settled as skipped; a composite (a module or package) is
   * scaffolding, passed once what it depends on is; an interruption stops the run before the node.
   */
  async function admit(id: string): Promise<Admission> {
    const entry = checkpoint.nodes[id]!;
    since.set(id, clock());
    if (entry.status === "skipped") return "done";
    const blockers = blockersOf(id, plan, checkpoint);
    if (blockers.length > 0) {
      Object.assign(entry, {
        status: "skipped",
        timestamp: iso(),
        blocked_by: blockers,
        failure_reason: `skipped: depends on ${blockers.join(", ")}, which did not pass`,
      });
      await save(id);
      return "done";
    }
    if (signal.aborted) {
      interrupted = true;
      return "stop";
    }
    if (plan.nodes.get(id)!.node_type === "composite") {
      Object.assign(entry, { status: "passed", timestamp: iso() });
      delete entry.failure_reason;
      await save(id);
      return "done";
    }
    return "run";
  }

  /** Runs one leaf's executor and records its outcome; false when it did not finish (interrupted). */
  async function execute(id: string, entry: CheckpointEntry, since: number): Promise<boolean> {
    const node = plan.nodes.get(id)!;
    const attempt = { run_id: runId, started_at: iso() };
    entry.attempts.push(attempt);
    Object.assign(entry, { status: "in_progress", timestamp: attempt.started_at });
    await save(id);
    emit({ type: "node-started", nodeId: id, attempt: entry.attempts.length });

    let outcome: NodeOutcome;
    try {
      // A signal of its own, following the run's: what a node listens on (its requests, its pytest runs) is
      // counted on it, so that 16 nodes at once do not pile dozens of listeners onto one signal.
      outcome = await executor(node, { runId, attempt: entry.attempts.length, signal: AbortSignal.any([signal]) });
    } catch (error) {
      // A run-level failure (bad credentials, a broken sandbox) ends the run with the
      // node still in_progress, so a resume retries it; anything else fails the node.
      if (error instanceof RpgForgeError) {
        await save(id);
        throw error;
      }
      outcome = { status: "failed", iterations: 0, reason: `internal error: ${(error as Error).message}` };
    }
    // Reasons and failure context quote generated code and its output, which may hold a
    // secret it found; from here they reach the checkpoint, the report and PR comments.
    outcome = redactDeep(outcome);
    if (outcome.status === "interrupted") {
      interrupted = true;
      await save(id);
      return false;
    }
    recordOutcome(entry, attempt, outcome, iso(), node.name);
    unannounced.add(id);
    entry.duration_ms = Math.max(0, clock() - since);
    const kept = outcome.status === "failed" ? reviewed.get(id) : undefined;
    // The failed version never reached the output, which still holds the reviewed one: the entry says so again.
    const skipped: string[] = [];
    if (kept) keepReviewedVersion(entry, kept, iso());
    else if (outcome.status === "failed") skipped.push(...skipDownstream(id, plan, checkpoint, iso()));
    awaitLines(skipped);
    if (outcome.status === "passed" && writer) {
      batchFull = writer.stage(id) || batchFull;
      checkpoint.pending_writes = [...writer.pending];
    }
    await save(id, ...skipped);
    return true;
  }
}

/** The entry as it was before the revision, with the revision's attempt (and its reason) and tokens added to its history. */
function keepReviewedVersion(entry: CheckpointEntry, reviewed: CheckpointEntry, now: string): void {
  const { attempts, tokens } = entry;
  for (const key of Object.keys(entry)) delete (entry as Record<string, unknown>)[key];
  Object.assign(entry, reviewed, { attempts, timestamp: now });
  if (tokens) entry.tokens = tokens;
}

function recordOutcome(
  entry: CheckpointEntry,
  attempt: CheckpointEntry["attempts"][number],
  outcome: Exclude<NodeOutcome, { status: "interrupted" }>,
  now: string,
  name: string,
): void {
  entry.status = outcome.status;
  entry.timestamp = now;
  entry.retry_count = outcome.iterations;
  if (outcome.testResults) entry.test_results = outcome.testResults;
  if (outcome.usage) {
    const before = entry.tokens ?? { prompt: 0, completion: 0, total: 0 };
    const { promptTokens, completionTokens, totalTokens } = outcome.usage;
    entry.tokens = {
      prompt: before.prompt + promptTokens,
      completion: before.completion + completionTokens,
      total: before.total + totalTokens,
    };
  }
  Object.assign(attempt, { finished_at: now, status: outcome.status, iterations: outcome.iterations });
  // What the latest attempt measured replaces what an earlier one did, absent included.
  const keep = <K extends keyof CheckpointEntry>(key: K, value: CheckpointEntry[K] | undefined): void => {
    if (value === undefined) delete entry[key];
    else entry[key] = value;
  };
  keep("diagnoses", outcome.diagnoses);
  keep("regressions", outcome.regressions || undefined);
  keep("reviews", outcome.reviews);
  if (outcome.status === "failed") {
    entry.failure_reason = outcome.reason;
    if (outcome.context) entry.failure_context = outcome.context;
    Object.assign(attempt, { failure_reason: outcome.reason });
  } else {
    delete entry.failure_reason;
    delete entry.blocked_by;
    delete entry.failure_context;
    // Recorded when it says more than the default, the node's name alone.
    keep("owns", outcome.owns && !(outcome.owns.length === 1 && outcome.owns[0] === name) ? outcome.owns : undefined);
    keep("test_strength", outcome.testStrength);
    keep("coverage", outcome.coverage);
    keep("coverage_note", outcome.coverageNote || undefined);
  }
}

async function openCheckpoint(
  options: RunOptions,
  store: CheckpointStore,
  now: string,
): Promise<{ checkpoint: Checkpoint; resumed: boolean }> {
  const { checkpointPath: path, plan, runId, rpgSha256 } = options;
  if (options.mode === "fresh") {
    const aside = await setCheckpointAside(path, new Date(now));
    if (aside) options.onEvent?.({ type: "checkpoint-set-aside", path: aside });
    return { checkpoint: newCheckpoint(plan, runId, rpgSha256, now), resumed: false };
  }
  const existing = await store.read();
  if (existing && options.mode === "new") throw checkpointExistsError(path);
  if (!existing) return { checkpoint: newCheckpoint(plan, runId, rpgSha256, now), resumed: false };
  return { checkpoint: existing, resumed: true };
}

/**
 * The checks runPlan makes of `only` and `startFromNode`, for a caller to make before it writes
 * anything: the same errors, against the checkpoint the run would open (undefined for a new run).
 */
export function checkRequestedNodes(
  plan: Plan,
  checkpoint: Checkpoint | undefined,
  request: Pick<RunOptions, "only" | "startFromNode">,
): void {
  // As on resume: a node whose files were never written counts as not passed.
  const unwritten = new Set(checkpoint?.pending_writes ?? []);
  const known = { nodes: Object.fromEntries(Object.entries(checkpoint?.nodes ?? {}).filter(([id]) => !unwritten.has(id))) };
  if (request.only) onlyRange(request.only, plan, known);
  else startIndexOf(request.startFromNode, plan, known);
}

/** Index in the order to start at; checks that everything the start node depends on has passed. */
function startIndexOf(startFromNode: string | undefined, plan: Plan, checkpoint: Pick<Checkpoint, "nodes">): number {
  if (startFromNode === undefined) return 0;
  const index = plan.order.indexOf(startFromNode);
  if (index < 0) {
    throw new RpgForgeError(
      "RESUME_UNKNOWN_NODE",
      `--start-from-node names "${startFromNode}", which is not a node of the RPG`,
      { nodeId: startFromNode },
      "run `rpg-forge plan` to list the node ids",
    );
  }
  const notPassed = ancestorsOf(startFromNode, plan).filter((id) => checkpoint.nodes[id]?.status !== "passed");
  if (notPassed.length > 0) {
    const list = notPassed.map((id) => `${id} (${checkpoint.nodes[id]?.status ?? "pending"})`).join(", ");
    throw new RpgForgeError(
      "RESUME_DEPENDENCY_NOT_PASSED",
      `cannot start from "${startFromNode}": its dependencies have not all passed: ${list}`,
      { nodeId: startFromNode, field: "dependencies" },
      "resume without --start-from-node, or start from the earliest of these",
    );
  }
  return index;
}

/** The nodes --only names, in plan order, once each has been checked to exist and to have what it needs. */
function onlyRange(only: readonly string[], plan: Plan, checkpoint: Pick<Checkpoint, "nodes">): string[] {
  const wanted = new Set(only);
  for (const id of wanted) {
    if (!plan.nodes.has(id))
      throw new RpgForgeError(
        "RESUME_UNKNOWN_NODE",
        `--only names "${id}", which is not a node of the RPG`,
        { nodeId: id },
        "run `rpg-forge plan` to list the node ids",
      );
    const missing = ancestorsOf(id, plan).filter((dep) => !wanted.has(dep) && checkpoint.nodes[dep]?.status !== "passed");
    if (missing.length > 0) {
      throw new RpgForgeError(
        "RESUME_DEPENDENCY_NOT_PASSED",
        `cannot regenerate "${id}": its dependencies have not all passed: ${missing.join(", ")}`,
        { nodeId: id, field: "dependencies" },
        "add them to --only, or resume the whole run",
      );
    }
  }
  return plan.order.filter((id) => wanted.has(id));
}

function ancestorsOf(id: string, plan: Plan): string[] {
  const seen = new Set<string>();
  const queue = [...(plan.dependencies.get(id) ?? [])];
  for (let head = 0; head < queue.length; head++) {
    const dep = queue[head]!;
    if (seen.has(dep)) continue;
    seen.add(dep);
    queue.push(...(plan.dependencies.get(dep) ?? []));
  }
  return plan.order.filter((n) => seen.has(n));
}
