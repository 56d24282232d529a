import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeCheckpoint, type Checkpoint } from "../src/engine/checkpoint.js";
import { CheckpointStore } from "../src/engine/checkpoint-journal.js";
import type { NodeExecutor } from "../src/engine/events.js";
import { runPlan } from "../src/engine/run.js";
import type { Plan } from "../src/plan/plan.js";
import { formatBytes, summarize, timeAsync, timingRow, type Row } from "./measure.js";

/**
 * Targets in ms. A node takes tens of seconds to generate (34 s on average in the
 * PRD's example report), so the engine's own bookkeeping is invisible at these sizes;
 * the targets are there to catch it growing faster than the graph. The checkpoint is
 * written whole at a run's start and end and when its journal outgrows it; each step
 * between appends one line to the journal (issue 16: a 10,000-node run writes it in
 * under a second in all).
 */
const TARGETS = {
  perNode1k: 25,
  write1k: 10,
  write10k: 100,
  run10kWrites: 1_000,
} as const;

export interface BenchOutput {
  rows: Row[];
  notes: string[];
  fail: (message: string) => void;
}

/** Every node passes at once: what is left is the engine's bookkeeping and its checkpoint writes. */
const instantPass: NodeExecutor = () => Promise.resolve({ status: "passed", iterations: 1 });

/** runPlan over a 1,000-node plan with its checkpoint in a temp dir, then the cost of one checkpoint write at 1,000 and 10,000 entries. */
export async function benchRunPlan(plan: Plan, warmupPlan: Plan | undefined, plan10k: Plan | undefined, out: BenchOutput): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "rpg-forge-bench-"));
  try {
    if (warmupPlan) await runOnce(warmupPlan, join(dir, "warmup.json"));
    const { checkpoint, elapsed, perNode } = await runOnce(plan, join(dir, "checkpoint.json"));
    const passed = Object.values(checkpoint.nodes).filter((entry) => entry.status === "passed").length;
    if (passed !== plan.order.length) out.fail(`runPlan with an always-passing executor passed ${passed} of ${plan.order.length} nodes`);
    if (perNode.length !== plan.order.length) out.fail(`runPlan reported ${perNode.length} finished nodes for ${plan.order.length}`);

    const count = plan.order.length.toLocaleString("en-US");
    out.rows.push(timingRow(`runPlan ${count} nodes, instant executor`, summarize([elapsed]), TARGETS.perNode1k * plan.order.length));
    out.rows.push(timingRow("  per node (checkpoint written after each step)", summarize(perNode), TARGETS.perNode1k));

    const size1k = checkpointBytes(checkpoint);
    const write1k = await timeAsync(() => writeCheckpoint(join(dir, "write-1k.json"), checkpoint), { warmup: 2, runs: 21 });
    out.rows.push(timingRow(`  one checkpoint write, ${count} entries (${formatBytes(size1k)})`, write1k, TARGETS.write1k));

    if (plan10k) {
      const big = finishedCheckpoint(plan10k, checkpoint);
      const write10k = await timeAsync(() => writeCheckpoint(join(dir, "write-10k.json"), big), { warmup: 1, runs: 7 });
      out.rows.push(timingRow(`  one checkpoint write, 10,000 entries (${formatBytes(checkpointBytes(big))})`, write10k, TARGETS.write10k));
      // What a 10,000-node run writes of its checkpoint: whole at the start, two journal lines per leaf
      // (in progress, then the outcome), compactions as the journal grows, whole at the end.
      const runWrites = await timeAsync(() => journaledRun(join(dir, "run-10k.json"), big), { warmup: 1, runs: 3 });
      out.rows.push(timingRow("  a 10,000-node run's checkpoint writes, journaled (2 per node)", runWrites, TARGETS.run10kWrites));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runOnce(plan: Plan, checkpointPath: string): Promise<{ checkpoint: Checkpoint; elapsed: number; perNode: number[] }> {
  const perNode: number[] = [];
  const start = performance.now();
  const { checkpoint } = await runPlan({
    plan,
    checkpointPath,
    executor: instantPass,
    runId: "bench",
    rpgSha256: "0".repeat(64),
    mode: "new",
    // Fractional milliseconds, so each node-finished event carries a usable duration.
    clock: () => performance.timeOrigin + performance.now(),
    onEvent: (event) => {
      if (event.type === "node-finished") perNode.push(event.durationMs);
    },
  });
  return { checkpoint, elapsed: performance.now() - start, perNode };
}

/** A checkpoint of `plan`'s nodes, each a copy of a finished entry of the measured run: the size a finished 10,000-node run writes. */
function finishedCheckpoint(plan: Plan, from: Checkpoint): Checkpoint {
  const template = Object.values(from.nodes)[0];
  const nodes: Checkpoint["nodes"] = {};
  for (const id of plan.order) {
    const entry = structuredClone(template!);
    entry.subgraph_id = plan.nodes.get(id)?.subgraph_id;
    nodes[id] = entry;
  }
  return { ...from, nodes };
}

async function journaledRun(path: string, finished: Checkpoint): Promise<void> {
  const checkpoint = structuredClone(finished);
  const store = new CheckpointStore(path);
  await store.compact(checkpoint);
  for (const [id, entry] of Object.entries(checkpoint.nodes)) {
    entry.status = "in_progress";
    await store.record(checkpoint, [id]);
    entry.status = "passed";
    await store.record(checkpoint, [id]);
  }
  await store.compact(checkpoint);
}

function checkpointBytes(checkpoint: Checkpoint): number {
  return Buffer.byteLength(`${JSON.stringify(checkpoint, null, 2)}\n`);
}
