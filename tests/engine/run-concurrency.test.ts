import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NodeExecutor, NodeOutcome, RunEvent } from "../../src/engine/events.js";
import { runPlan, type NodeWriter, type RunOptions } from "../../src/engine/run.js";
import { RpgForgeError } from "../../src/errors.js";
import { buildPlan, type Plan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

function planOf(nodes: Record<string, unknown>[]): Plan {
  const loaded = parseRpgText(text(rpgDoc(nodes)), "rpg.json");
  if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join("; "));
  return buildPlan(loaded.value);
}
const own = (id: string, deps: string[] = []) => leaf({ id, deps, file: `src/pkg/${id}.py` });
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An executor that records what ran when. Each node holds until `hold` says the others
 * it should overlap with are running (at most a second), so overlap does not depend on
 * how fast the machine is; then it takes `ms`.
 */
function timed(
  ms = 30,
  outcome: (id: string) => NodeOutcome = () => ({ status: "passed", iterations: 0 }),
  hold: (id: string, active: ReadonlySet<string>) => boolean = () => false,
) {
  const active = new Set<string>();
  const log: string[] = [];
  let most = 0;
  const executor: NodeExecutor = async (node) => {
    active.add(node.id);
    most = Math.max(most, active.size);
    log.push(`start ${node.id}`);
    for (let waited = 0; hold(node.id, active) && waited < 1000; waited += 5) await tick(5);
    await tick(ms);
    active.delete(node.id);
    log.push(`end ${node.id}`);
    return outcome(node.id);
  };
  return { executor, log, active, most: () => most };
}

function options(plan: Plan, executor: NodeExecutor, extra: Partial<RunOptions> = {}): RunOptions & { events: RunEvent[] } {
  const events: RunEvent[] = [];
  return {
    plan,
    executor,
    checkpointPath: join(tempDir(), "checkpoint.json"),
    runId: "run-1",
    rpgSha256: "abc",
    mode: "new",
    onEvent: (e) => events.push(e),
    events,
    ...extra,
  };
}

describe("runPlan with a concurrency above 1", () => {
  it("runs independent nodes together, up to the limit", async () => {
    const plan = planOf(["a", "b", "c", "d", "e"].map((id) => own(id)));
    for (const limit of [2, 3]) {
      const run = timed(10, undefined, (_id, active) => active.size < limit);
      const { checkpoint } = await runPlan(options(plan, run.executor, { concurrency: limit }));
      expect(run.most()).toBe(limit);
      expect(Object.values(checkpoint.nodes).every((e) => e.status === "passed")).toBe(true);
    }
  });

  it("never runs two nodes on one file at once", async () => {
    const plan = planOf([leaf({ id: "a", name: "fa" }), leaf({ id: "b", name: "fb" }), own("c")]);
    const run = timed(30, undefined, (id, active) => id === "a" && !active.has("c"));
    await runPlan(options(plan, run.executor, { concurrency: 3 }));
    // a and b share src/pkg/core.py: b starts only after a ended; c runs beside a.
    expect(run.log.indexOf("start b")).toBeGreaterThan(run.log.indexOf("end a"));
    expect(run.log.indexOf("start c")).toBeLessThan(run.log.indexOf("end a"));
  });

  it("starts a node only after everything it depends on has finished, and skips what a failure blocks", async () => {
    const plan = planOf([own("a"), own("b", ["a"]), own("c"), own("d", ["c"])]);
    const run = timed(30, (id) => (id === "c" ? { status: "failed", iterations: 8, reason: "no" } : { status: "passed", iterations: 0 }));
    const opts = options(plan, run.executor, { concurrency: 4 });
    const { checkpoint } = await runPlan(opts);
    expect(run.log.indexOf("start b")).toBeGreaterThan(run.log.indexOf("end a"));
    expect(run.log).not.toContain("start d");
    expect(checkpoint.nodes.d).toMatchObject({ status: "skipped", blocked_by: ["c"] });
    const finished = opts.events.filter((e) => e.type === "node-finished").map((e) => e.type === "node-finished" && e.nodeId);
    expect(finished.sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("writes a batch only when no executor runs on the files it writes, and keeps the others running meanwhile", async () => {
    // Two nodes per module: a batch's module can be one that a running node edits.
    const shared = (id: string, module: string) => leaf({ id, file: `src/pkg/${module}.py` });
    const plan = planOf([shared("a", "m1"), shared("b", "m2"), shared("c", "m3"), shared("d", "m1"), shared("e", "m2"), shared("f", "m3")]);
    const run = timed(20);
    const staged: string[] = [];
    const fileOf = (id: string) => plan.nodes.get(id)!.file_path;
    const flushes: { writing: string[]; running: string[] }[] = [];
    const writer: NodeWriter = {
      get pending() {
        return staged;
      },
      stage(id) {
        staged.push(id);
        return staged.length >= 2;
      },
      async flush() {
        flushes.push({ writing: staged.map(fileOf), running: [...run.active] });
        await tick(30);
        const written = staged.splice(0);
        return { written, files: [], failed: [], blocked: [] };
      },
    };
    const opts = options(plan, run.executor, { concurrency: 3, writer });
    await runPlan(opts);
    expect(flushes.length).toBeGreaterThan(0);
    // Generated code never sees a file mid-write, and the output never gets one mid-edit.
    for (const { writing, running } of flushes) expect(running.map(fileOf).filter((file) => writing.includes(file))).toEqual([]);
    // Before issue 16 every write waited for every executor: none ran during one.
    expect(flushes.some(({ running }) => running.length > 0)).toBe(true);
    const written = opts.events.flatMap((e) => (e.type === "batch-written" ? e.nodeIds : []));
    expect(written.sort()).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("gives no MaxListenersExceededWarning with 16 nodes at once, each listening for the stop a few times", async () => {
    const plan = planOf(Array.from({ length: 16 }, (_, i) => own(`n${i}`)));
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    const controller = new AbortController();
    const executor: NodeExecutor = async (_node, context) => {
      // A node's model requests and pytest runs each listen for the stop while they run.
      const listeners = Array.from({ length: 4 }, () => () => undefined);
      for (const listener of listeners) context.signal.addEventListener("abort", listener);
      await tick(20);
      for (const listener of listeners) context.signal.removeEventListener("abort", listener);
      return { status: "passed", iterations: 0 };
    };
    try {
      await runPlan(options(plan, executor, { concurrency: 16, signal: controller.signal }));
      await tick(10);
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });

  it("passes the stop on to every running node", async () => {
    const plan = planOf(["a", "b"].map((id) => own(id)));
    const controller = new AbortController();
    const seen: boolean[] = [];
    const executor: NodeExecutor = async (_node, context) => {
      await tick(10);
      controller.abort();
      await tick(10);
      seen.push(context.signal.aborted);
      return { status: "interrupted" };
    };
    await runPlan(options(plan, executor, { concurrency: 2, signal: controller.signal }));
    expect(seen).toEqual([true, true]);
  });

  it("lets running nodes end when interrupted, and starts no more", async () => {
    const plan = planOf(["a", "b", "c", "d"].map((id) => own(id)));
    const controller = new AbortController();
    const started: string[] = [];
    const executor: NodeExecutor = async (node, context) => {
      started.push(node.id);
      if (node.id === "b") controller.abort();
      await tick(20);
      return context.signal.aborted ? { status: "interrupted" } : { status: "passed", iterations: 0 };
    };
    const { checkpoint, interrupted } = await runPlan(options(plan, executor, { concurrency: 2, signal: controller.signal }));
    expect(interrupted).toBe(true);
    expect(started.sort()).toEqual(["a", "b"]);
    expect([checkpoint.nodes.a!.status, checkpoint.nodes.b!.status, checkpoint.nodes.c!.status]).toEqual([
      "in_progress",
      "in_progress",
      "pending",
    ]);
  });

  it("waits for the other running nodes before it reports an error of the run", async () => {
    const plan = planOf(["a", "b", "c"].map((id) => own(id)));
    const executor: NodeExecutor = async (node) => {
      if (node.id === "a") throw new RpgForgeError("MODEL_AUTH", "the key was refused");
      await tick(30);
      return { status: "passed", iterations: 0 };
    };
    const opts = options(plan, executor, { concurrency: 2 });
    await expect(runPlan(opts)).rejects.toMatchObject({ code: "MODEL_AUTH" });
    const finished = opts.events.filter((e) => e.type === "node-finished").map((e) => e.type === "node-finished" && [e.nodeId, e.status]);
    expect(finished).toEqual([["b", "passed"]]);
  });
});
