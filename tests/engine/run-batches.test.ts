import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCheckpoint, type Checkpoint } from "../../src/engine/checkpoint.js";
import { CheckpointStore } from "../../src/engine/checkpoint-journal.js";
import type { NodeExecutor, RunEvent } from "../../src/engine/events.js";
import { runPlan, type RunOptions } from "../../src/engine/run.js";
import { RpgForgeError } from "../../src/errors.js";
import { buildPlan, type Plan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { BatchedWriter } from "../../src/workspace/batched-writer.js";
import { PackageFiles } from "../../src/workspace/package-files.js";
import { chain, leaf, rpgDoc, text } from "../helpers/rpg.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

function planOf(doc: unknown): Plan {
  const loaded = parseRpgText(text(doc), "rpg.json");
  if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join("; "));
  return buildPlan(loaded.value);
}

/**
 * A run with a real BatchedWriter: each node's module is src/pkg/<id>.py, and the
 * executor writes it to the work tree (as the TDD loop does) and notes, at each
 * node's start, which nodes the output holds and which the checkpoint says are buffered.
 */
async function batchedRun(
  plan: Plan,
  extra: Partial<RunOptions> & { before?: (id: string) => Promise<void> | void; batchSize?: number; out?: string } = {},
) {
  const work = tempDir();
  const out = extra.out ?? tempDir();
  const checkpointPath = join(out, "docs/generation_checkpoint.json");
  const events: RunEvent[] = [];
  const seen: Record<string, { inOutput: string[]; buffered: string[] | undefined }> = {};
  const module = (id: string) => `src/pkg/${id}.py`;
  const executor: NodeExecutor = async (node) => {
    await extra.before?.(node.id);
    // What a crash here would leave: the file and its journal.
    const checkpoint = (await new CheckpointStore(checkpointPath).read())!;
    seen[node.id] = { inOutput: plan.order.filter((id) => existsSync(join(out, module(id)))), buffered: checkpoint.pending_writes };
    mkdirSync(join(work, "src/pkg"), { recursive: true });
    writeFileSync(join(work, module(node.id)), `def ${node.name}():\n    return 1\n`);
    return { status: "passed", iterations: 0 };
  };
  let now = Date.parse("2026-11-22T10:00:00Z");
  const writer = new BatchedWriter({
    work: await PackageFiles.open(work),
    output: await PackageFiles.open(out),
    filesOf: (id) => [module(id)],
    dependsOn: (id) => plan.dependencies.get(id) ?? [],
    ...(extra.batchSize ? { batchSize: extra.batchSize } : {}),
  });
  const { before: _before, batchSize: _size, out: _out, ...rest } = extra;
  const options: RunOptions = {
    plan,
    executor,
    checkpointPath,
    runId: "run-1",
    rpgSha256: "abc",
    mode: "new",
    clock: () => (now += 1000),
    onEvent: (e) => events.push(e),
    writer,
    ...rest,
  };
  return { work, out, checkpointPath, events, seen, options, run: () => runPlan(options) };
}

const batches = (events: RunEvent[]) => events.flatMap((e) => (e.type === "batch-written" ? [e.nodeIds] : []));
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `n${String(from + i).padStart(2, "0")}`);
const readCp = (path: string): Checkpoint => parseCheckpoint(readFileSync(path, "utf8"), path);

describe("runPlan with batched writes", () => {
  it("writes passed nodes' files after every fifth node and at the end, the checkpoint naming what is buffered", async () => {
    const run = await batchedRun(planOf(rpgDoc(chain(12))));
    await run.run();
    expect(batches(run.events)).toEqual([ids(1, 5), ids(6, 10), ids(11, 12)]);
    expect(run.seen.n05).toEqual({ inOutput: [], buffered: ids(1, 4) });
    expect(run.seen.n06).toEqual({ inOutput: ids(1, 5), buffered: undefined });
    expect(run.seen.n12!.buffered).toEqual(["n11"]);
    for (const id of ids(1, 12)) expect(existsSync(join(run.out, `src/pkg/${id}.py`))).toBe(true);
    expect(readCp(run.checkpointPath).pending_writes).toBeUndefined();
  });

  it("writes a subgraph's files as soon as it completes, before history is written", async () => {
    const plan = planOf(
      rpgDoc([leaf({ id: "a1", subgraph: "a" }), leaf({ id: "a2", subgraph: "a" }), leaf({ id: "b1", subgraph: "b", deps: ["a2"] })]),
    );
    const committed: Record<string, boolean> = {};
    const run = await batchedRun(plan, {
      afterNode: async (id) => {
        committed[id] = existsSync(join(run.out, `src/pkg/${id}.py`));
      },
    });
    await run.run();
    expect(batches(run.events)).toEqual([["a1", "a2"], ["b1"]]);
    expect(committed).toEqual({ a1: false, a2: true, b1: true });
  });

  it("fails a node whose files cannot be written and skips what depends on it", async () => {
    const plan = planOf(rpgDoc(chain(3)));
    const out = tempDir();
    // A file where the package folder should be: the output cannot take n01's module.
    mkdirSync(join(out, "src"));
    writeFileSync(join(out, "src/pkg"), "in the way\n");
    const run = await batchedRun(plan, { out, batchSize: 1 });
    const { checkpoint } = await run.run();
    expect(checkpoint.nodes.n01).toMatchObject({
      status: "failed",
      failure_reason: expect.stringMatching(/^write failed: cannot write src\/pkg\/n01\.py: E/),
    });
    expect(checkpoint.nodes.n01!.attempts.at(-1)).toMatchObject({ status: "failed" });
    expect(checkpoint.nodes.n02).toMatchObject({ status: "skipped", blocked_by: ["n01"] });
    expect(Object.keys(run.seen)).toEqual(["n01"]);
    const finished = run.events.flatMap((e) => (e.type === "node-finished" ? [[e.nodeId, e.status]] : []));
    expect(finished).toEqual([
      ["n01", "failed"],
      ["n02", "skipped"],
      ["n03", "skipped"],
    ]);
    expect(readFileSync(join(out, "src/pkg"), "utf8")).toBe("in the way\n");
    expect(readCp(run.checkpointPath).nodes.n01!.status).toBe("failed");
  });

  it("skips a node of the same batch that passed but imports one that could not be written", async () => {
    const plan = planOf(rpgDoc(chain(3)));
    const out = tempDir();
    mkdirSync(join(out, "src/pkg/n01.py"), { recursive: true });
    const run = await batchedRun(plan, { out });
    const { checkpoint } = await run.run();
    expect(Object.keys(run.seen)).toEqual(["n01", "n02", "n03"]);
    expect(checkpoint.nodes.n01!.status).toBe("failed");
    expect(checkpoint.nodes.n02).toMatchObject({ status: "skipped", blocked_by: ["n01"] });
    expect(checkpoint.nodes.n03).toMatchObject({ status: "skipped", blocked_by: ["n01"] });
    expect(run.events).toContainEqual({
      type: "batch-written",
      nodeIds: [],
      files: [],
      failed: [{ nodeId: "n01", reason: expect.stringContaining("cannot write src/pkg/n01.py") }],
      blocked: ["n02", "n03"],
    });
    expect(existsSync(join(out, "src/pkg/n02.py"))).toBe(false);
  });

  it("regenerates on resume the nodes a killed run passed but had not written", async () => {
    const plan = planOf(rpgDoc(chain(4)));
    const first = await batchedRun(plan);
    await first.run();
    // As if killed after n03 passed, with n02 and n03 still buffered.
    const killed = readCp(first.checkpointPath);
    killed.nodes.n04!.status = "pending";
    killed.pending_writes = ["n02", "n03"];
    writeFileSync(first.checkpointPath, JSON.stringify(killed));
    const second = await batchedRun(plan, { out: first.out, mode: "resume" });
    const { checkpoint } = await second.run();
    expect(second.events).toContainEqual({ type: "nodes-reset", nodeIds: ["n02", "n03"], reason: "not-written" });
    expect(Object.keys(second.seen)).toEqual(["n02", "n03", "n04"]);
    expect(Object.values(checkpoint.nodes).map((e) => e.status)).toEqual(["passed", "passed", "passed", "passed"]);
  });

  it("writes what passed when the run is interrupted or stopped by an error of its own", async () => {
    const plan = planOf(rpgDoc(chain(4)));
    const controller = new AbortController();
    const interrupted = await batchedRun(plan, {
      signal: controller.signal,
      before: (id) => {
        if (id === "n02") controller.abort();
      },
    });
    expect((await interrupted.run()).interrupted).toBe(true);
    expect(batches(interrupted.events)).toEqual([["n01", "n02"]]);
    expect(interrupted.events.at(-1)).toMatchObject({ type: "run-finished", interrupted: true });

    const broken = await batchedRun(plan, {
      before: (id) => {
        if (id === "n03") throw new RpgForgeError("MODEL_AUTH", "the key was refused");
      },
    });
    await expect(broken.run()).rejects.toMatchObject({ code: "MODEL_AUTH" });
    expect(batches(broken.events)).toEqual([["n01", "n02"]]);
    const checkpoint = readCp(broken.checkpointPath);
    expect(checkpoint.pending_writes).toBeUndefined();
    expect(checkpoint.nodes.n03!.status).toBe("in_progress");
  });
});
