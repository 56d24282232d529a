import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/engine/checkpoint.js";
import type { NodeExecutor, NodeOutcome, RunEvent } from "../../src/engine/events.js";
import { CheckpointStore } from "../../src/engine/checkpoint-journal.js";
import { runPlan, type RunOptions } from "../../src/engine/run.js";
import { summarize } from "../../src/record/summary.js";
import { RpgForgeError } from "../../src/errors.js";
import { buildPlan, type Plan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { chain, composite, leaf, rpgDoc, text } from "../helpers/rpg.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

function planOf(doc: unknown): Plan {
  const loaded = parseRpgText(text(doc), "rpg.json");
  if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join("; "));
  return buildPlan(loaded.value);
}

/** An executor that passes every node except those in `fail`, recording the order it was called in. */
function scripted(fail: string[] = []): NodeExecutor & { calls: string[] } {
  const calls: string[] = [];
  const executor: NodeExecutor = async (node) => {
    calls.push(node.id);
    return fail.includes(node.id)
      ? ({
          status: "failed",
          iterations: 8,
          reason: `AssertionError in test_${node.name}`,
          testResults: { passed: 1, failed: 2 },
        } satisfies NodeOutcome)
      : ({ status: "passed", iterations: 0, testResults: { passed: 3, failed: 0 } } satisfies NodeOutcome);
  };
  return Object.assign(executor, { calls });
}

function options(plan: Plan, executor: NodeExecutor, extra: Partial<RunOptions> = {}): RunOptions & { events: RunEvent[] } {
  const events: RunEvent[] = [];
  let now = Date.parse("2026-11-22T10:00:00Z");
  return {
    plan,
    executor,
    checkpointPath: join(extra.checkpointPath ? "" : tempDir(), extra.checkpointPath ?? "docs/generation_checkpoint.json"),
    runId: "run-1",
    rpgSha256: "abc",
    mode: "new",
    clock: () => (now += 1000),
    onEvent: (e) => events.push(e),
    events,
    ...extra,
  };
}

/** The checkpoint as a crash would leave it: the file and its journal. */
const readCheckpointFile = async (path: string): Promise<Checkpoint> => (await new CheckpointStore(path).read())!;
const statuses = (cp: Checkpoint) => Object.fromEntries(Object.entries(cp.nodes).map(([id, e]) => [id, e.status]));

describe("runPlan", () => {
  it("runs every node in plan order and records each as passed", async () => {
    const plan = planOf(rpgDoc(chain(3)));
    const executor = scripted();
    const opts = options(plan, executor);
    const { checkpoint, interrupted } = await runPlan(opts);
    expect(interrupted).toBe(false);
    expect(executor.calls).toEqual(["n01", "n02", "n03"]);
    expect(statuses(await readCheckpointFile(opts.checkpointPath))).toEqual({ n01: "passed", n02: "passed", n03: "passed" });
    expect(checkpoint.nodes.n02).toMatchObject({
      test_results: { passed: 3, failed: 0 },
      retry_count: 0,
      subgraph_id: "core",
      node_type: "leaf",
    });
  });

  it("writes the checkpoint after every node: each node sees the one before it passed and itself in progress", async () => {
    const plan = planOf(rpgDoc(chain(4)));
    let path = "";
    const seen: string[] = [];
    const opts = options(plan, async (node) => {
      const cp = await readCheckpointFile(path);
      seen.push(`${node.id}:${cp.nodes[node.id]!.status}:${Object.values(cp.nodes).filter((e) => e.status === "passed").length}`);
      return { status: "passed", iterations: 0 };
    });
    path = opts.checkpointPath;
    await runPlan(opts);
    expect(seen).toEqual(["n01:in_progress:0", "n02:in_progress:1", "n03:in_progress:2", "n04:in_progress:3"]);
    expect(readdirSync(join(path, "..")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("skips (does not fail) every node downstream of a failed node, naming the failed ancestor", async () => {
    // A → B → C → D, and E independent: B fails.
    const plan = planOf(
      rpgDoc([
        leaf({ id: "A" }),
        leaf({ id: "B", deps: ["A"] }),
        leaf({ id: "C", deps: ["B"] }),
        leaf({ id: "D", deps: ["C"] }),
        leaf({ id: "E" }),
      ]),
    );
    const executor = scripted(["B"]);
    const opts = options(plan, executor);
    const { checkpoint } = await runPlan(opts);
    expect(executor.calls).toEqual(["A", "B", "E"]);
    expect(statuses(checkpoint)).toEqual({ A: "passed", B: "failed", C: "skipped", D: "skipped", E: "passed" });
    expect(checkpoint.nodes.B).toMatchObject({
      retry_count: 8,
      failure_reason: "AssertionError in test_fn_B",
      test_results: { passed: 1, failed: 2 },
    });
    expect(checkpoint.nodes.D!.blocked_by).toEqual(["B"]);
    const finished = opts.events.filter((e) => e.type === "node-finished").map((e) => e.type === "node-finished" && [e.nodeId, e.status]);
    expect(finished).toEqual([
      ["A", "passed"],
      ["B", "failed"],
      ["C", "skipped"],
      ["D", "skipped"],
      ["E", "passed"],
    ]);
    const summary = summarize(checkpoint);
    expect(summary.counts).toMatchObject({ total: 5, passed: 2, failed: 1, skipped: 2 });
    expect(summary.failed).toEqual([{ id: "B", subgraphId: "core", reason: "AssertionError in test_fn_B", iterations: 8 }]);
  });

  it("names every failed root when a node is blocked by two failures", async () => {
    const plan = planOf(rpgDoc([leaf({ id: "A" }), leaf({ id: "B" }), leaf({ id: "C", deps: ["A", "B"] })]));
    const { checkpoint } = await runPlan(options(plan, scripted(["A", "B"])));
    expect(checkpoint.nodes.C).toMatchObject({ status: "skipped", blocked_by: ["A", "B"] });
  });

  it("resumes from node 5 of 10: passed nodes are not run again", async () => {
    const plan = planOf(rpgDoc(chain(10)));
    const first = options(plan, scripted(["n05"]));
    await runPlan(first);
    expect(statuses(await readCheckpointFile(first.checkpointPath))).toMatchObject({
      n04: "passed",
      n05: "failed",
      n06: "skipped",
      n10: "skipped",
    });

    const executor = scripted();
    const second = options(plan, executor, { checkpointPath: first.checkpointPath, mode: "resume", runId: "run-2" });
    const { checkpoint } = await runPlan(second);
    expect(executor.calls).toEqual(["n05", "n06", "n07", "n08", "n09", "n10"]);
    expect(Object.values(checkpoint.nodes).every((e) => e.status === "passed")).toBe(true);
    expect(checkpoint.nodes.n05!.attempts.map((a) => [a.run_id, a.status])).toEqual([
      ["run-1", "failed"],
      ["run-2", "passed"],
    ]);
    expect(second.events[0]).toEqual({ type: "run-started", runId: "run-2", total: 10, toRun: 6, resumed: true });
  });

  it("retries a node left in progress by a crash", async () => {
    const plan = planOf(rpgDoc(chain(3)));
    const first = options(plan, async (node) => {
      if (node.id === "n02") throw new RpgForgeError("CHECKPOINT_WRITE_FAILED", "simulated crash");
      return { status: "passed", iterations: 0 };
    });
    await expect(runPlan(first)).rejects.toThrow("simulated crash");
    expect(statuses(await readCheckpointFile(first.checkpointPath))).toEqual({ n01: "passed", n02: "in_progress", n03: "pending" });
    const executor = scripted();
    await runPlan(options(plan, executor, { checkpointPath: first.checkpointPath, mode: "resume" }));
    expect(executor.calls).toEqual(["n02", "n03"]);
  });

  it("starts from a named node when all its dependencies passed, leaving earlier nodes as they are", async () => {
    const plan = planOf(rpgDoc([...chain(4), leaf({ id: "x" })]));
    const first = options(plan, scripted(["x"]));
    await runPlan(first);
    const executor = scripted();
    const { checkpoint } = await runPlan(
      options(plan, executor, { checkpointPath: first.checkpointPath, mode: "resume", startFromNode: "n03" }),
    );
    // n03 and n04 passed already; x comes after n04 in the order and is retried.
    expect(plan.order).toEqual(["n01", "n02", "n03", "n04", "x"]);
    expect(executor.calls).toEqual(["x"]);
    expect(checkpoint.nodes.x!.status).toBe("passed");
  });

  it("refuses to start from a node whose dependencies have not passed, naming them", async () => {
    const plan = planOf(rpgDoc(chain(6)));
    const first = options(plan, scripted(["n03"]));
    await runPlan(first);
    const attempt = runPlan(options(plan, scripted(), { checkpointPath: first.checkpointPath, mode: "resume", startFromNode: "n05" }));
    await expect(attempt).rejects.toMatchObject({ code: "RESUME_DEPENDENCY_NOT_PASSED", at: { nodeId: "n05" } });
    await expect(attempt).rejects.toThrow("n03 (failed), n04 (skipped)");
    await expect(
      runPlan(options(plan, scripted(), { checkpointPath: first.checkpointPath, mode: "resume", startFromNode: "nope" })),
    ).rejects.toMatchObject({ code: "RESUME_UNKNOWN_NODE" });
  });

  it("refuses to overwrite an existing checkpoint unless asked to resume or start fresh", async () => {
    const plan = planOf(rpgDoc(chain(2)));
    const first = options(plan, scripted());
    await runPlan(first);
    await expect(runPlan(options(plan, scripted(), { checkpointPath: first.checkpointPath }))).rejects.toMatchObject({
      code: "CHECKPOINT_EXISTS",
    });
  });

  it("reports a corrupt checkpoint and starts fresh only when asked, keeping the corrupt file", async () => {
    const plan = planOf(rpgDoc(chain(2)));
    const dir = tempDir();
    const path = join(dir, "cp.json");
    writeFileSync(path, '{"version": 1, "nodes": ');
    const executor = scripted();
    await expect(runPlan(options(plan, executor, { checkpointPath: path, mode: "resume" }))).rejects.toMatchObject({
      code: "CHECKPOINT_CORRUPT",
      hint: expect.stringContaining("--fresh"),
    });
    expect(executor.calls).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe('{"version": 1, "nodes": ');

    const fresh = options(plan, executor, { checkpointPath: path, mode: "fresh" });
    await runPlan(fresh);
    expect(executor.calls).toEqual(["n01", "n02"]);
    const aside = readdirSync(dir).find((f) => f.startsWith("cp.json.previous-"));
    expect(aside && readFileSync(join(dir, aside), "utf8")).toBe('{"version": 1, "nodes": ');
    expect(fresh.events).toContainEqual({ type: "checkpoint-set-aside", path: join(dir, aside!) });
  });

  it("regenerates a passed node whose specification changed since the checkpoint", async () => {
    const first = options(planOf(rpgDoc(chain(2))), scripted());
    await runPlan(first);
    const changed = chain(2);
    (changed[0] as { docstring: string }).docstring = "A new specification.";
    const executor = scripted();
    const second = options(planOf(rpgDoc(changed)), executor, { checkpointPath: first.checkpointPath, mode: "resume" });
    await runPlan(second);
    expect(executor.calls).toEqual(["n01"]);
    expect(second.events).toContainEqual({ type: "nodes-reset", nodeIds: ["n01"], reason: "spec-changed" });
  });

  it("stops between nodes when aborted, leaving the rest pending for a resume", async () => {
    const plan = planOf(rpgDoc(chain(4)));
    const controller = new AbortController();
    const opts = options(
      plan,
      async (node) => {
        if (node.id === "n02") controller.abort();
        return { status: "passed", iterations: 0 };
      },
      { signal: controller.signal },
    );
    const { interrupted } = await runPlan(opts);
    expect(interrupted).toBe(true);
    expect(statuses(await readCheckpointFile(opts.checkpointPath))).toEqual({
      n01: "passed",
      n02: "passed",
      n03: "pending",
      n04: "pending",
    });
  });

  it("keeps a node in progress when the executor reports it was interrupted", async () => {
    const plan = planOf(rpgDoc(chain(2)));
    const opts = options(plan, async () => ({ status: "interrupted" }));
    const { interrupted } = await runPlan(opts);
    expect(interrupted).toBe(true);
    expect(statuses(await readCheckpointFile(opts.checkpointPath))).toEqual({ n01: "in_progress", n02: "pending" });
  });

  it("fails only the node when the executor throws an unexpected error", async () => {
    const plan = planOf(rpgDoc([leaf({ id: "a" }), leaf({ id: "b" })]));
    const { checkpoint } = await runPlan(
      options(plan, async (node) => {
        if (node.id === "a") throw new TypeError("boom");
        return { status: "passed", iterations: 0 };
      }),
    );
    expect(checkpoint.nodes.a).toMatchObject({ status: "failed", failure_reason: "internal error: boom" });
    expect(checkpoint.nodes.b!.status).toBe("passed");
  });

  it("reports progress with an ETA every 10 nodes", async () => {
    const plan = planOf(rpgDoc(chain(25)));
    const opts = options(plan, scripted());
    await runPlan(opts);
    const progress = opts.events.filter((e) => e.type === "progress");
    expect(progress.map((e) => e.type === "progress" && [e.done, e.total])).toEqual([
      [10, 25],
      [20, 25],
      [25, 25],
    ]);
    // The fake clock advances 1 s per reading, so the rate is steady and the ETA exact.
    const [tenth] = progress;
    expect(tenth).toMatchObject({ type: "progress", done: 10 });
    if (tenth?.type === "progress") expect(tenth.etaMs).toBe(Math.round((tenth.elapsedMs / 10) * 15));
  });

  it("marks composite nodes passed without calling the executor", async () => {
    const module = composite({ id: "m" });
    const executor = scripted();
    const { checkpoint } = await runPlan(options(planOf(rpgDoc([module, leaf({ id: "a", parent_id: "m" })])), executor));
    expect(executor.calls).toEqual(["a"]);
    expect(checkpoint.nodes.m!.status).toBe("passed");
    expect(summarize(checkpoint).counts.total).toBe(1);
  });
});
