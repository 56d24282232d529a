import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Scheduler, type Admission, type SchedulerHooks, type SchedulerPlan } from "../../src/engine/scheduler.js";

/** Issue 16: the scheduler on fake tasks, each a timer: what runs when, and how many at once. */

interface FakeNode {
  deps?: string[];
  files?: string[];
  /** How long its executor runs, in ms. */
  ms?: number;
  admit?: Admission;
  /** Its executor throws, or returns false (interrupted). */
  outcome?: "throw" | "stop";
}

function fakePlan(nodes: Record<string, FakeNode>): SchedulerPlan {
  return {
    order: Object.keys(nodes),
    dependenciesOf: (id) => nodes[id]!.deps ?? [],
    filesOf: (id) => nodes[id]!.files ?? [`${id}.py`],
  };
}

/** Hooks that record starts, ends and settles, and the number in flight at each start. */
function recording(nodes: Record<string, FakeNode>, extra: Partial<SchedulerHooks> = {}) {
  const log: string[] = [];
  let running = 0;
  let most = 0;
  const hooks: SchedulerHooks = {
    admit: async (id) => nodes[id]!.admit ?? "run",
    execute: async (id) => {
      running++;
      most = Math.max(most, running);
      log.push(`start ${id}`);
      await sleep(nodes[id]!.ms ?? 10);
      running--;
      log.push(`end ${id}`);
      if (nodes[id]!.outcome === "throw") throw new Error(`${id} broke`);
      return nodes[id]!.outcome !== "stop";
    },
    settled: async (id) => {
      log.push(`settled ${id}`);
    },
    ...extra,
  };
  return { hooks, log, most: () => most };
}

describe("Scheduler", () => {
  it("starts nodes in plan order once their dependencies settled, at most `concurrency` at a time", async () => {
    const nodes: Record<string, FakeNode> = { a: { ms: 30 }, b: { ms: 10 }, c: { deps: ["a"] }, d: {}, e: { deps: ["b", "c"] } };
    const { hooks, log, most } = recording(nodes);
    await new Scheduler(fakePlan(nodes), hooks, 2).run();
    expect(most()).toBe(2);
    const at = (entry: string) => log.indexOf(entry);
    expect(log.filter((l) => l.startsWith("start")).slice(0, 2)).toEqual(["start a", "start b"]);
    expect(at("start c")).toBeGreaterThan(at("settled a"));
    expect(at("start e")).toBeGreaterThan(Math.max(at("settled b"), at("settled c")));
    expect(log.filter((l) => l.startsWith("settled")).sort()).toEqual(["a", "b", "c", "d", "e"].map((id) => `settled ${id}`));
  });

  it("never runs two nodes on one file", async () => {
    const nodes: Record<string, FakeNode> = { a: { files: ["m.py"], ms: 20 }, b: { files: ["m.py"], ms: 20 }, c: { files: ["n.py"] } };
    const { hooks, log } = recording(nodes);
    await new Scheduler(fakePlan(nodes), hooks, 3).run();
    expect(log.indexOf("start b")).toBeGreaterThan(log.indexOf("end a"));
    expect(log.indexOf("start c")).toBeLessThan(log.indexOf("end a"));
  });

  it("keeps `concurrency` nodes in flight while a write of one node's files is under way", async () => {
    const nodes: Record<string, FakeNode> = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`n${i}`, { ms: 15 }]));
    const inFlightDuringWrites: number[] = [];
    // eslint-disable-next-line prefer-const -- the hooks refer to it before it is made
    let scheduler: Scheduler;
    const { hooks } = recording(nodes, {
      // Every fifth node's bookkeeping writes its files for 40 ms, as a batch write does.
      settled: async (id) => {
        if (Number(id.slice(1)) % 5 !== 4) return;
        await scheduler.hold(
          () => new Set([`${id}.py`]),
          async () => {
            await sleep(20);
            inFlightDuringWrites.push(scheduler.inFlight);
            await sleep(20);
          },
        );
      },
    });
    scheduler = new Scheduler(fakePlan(nodes), hooks, 3);
    await scheduler.run();
    // Midway through each write but the last ones, as many nodes run as the limit allows (before: none).
    expect(inFlightDuringWrites.slice(0, 2)).toEqual([3, 3]);
  });

  it("a write waits for the node running on its files, and no node starts on them until it is done", async () => {
    const nodes: Record<string, FakeNode> = {
      slow: { files: ["m.py"], ms: 60 },
      quick: { files: ["q.py"], ms: 5 },
      later: { files: ["m.py"] },
    };
    // eslint-disable-next-line prefer-const -- the hooks refer to it before it is made
    let scheduler: Scheduler;
    const { hooks, log } = recording(nodes, {
      settled: async (id) => {
        log.push(`settled ${id}`);
        if (id === "quick")
          await scheduler.hold(
            () => new Set(["m.py"]),
            async () => {
              log.push("write m.py");
              await sleep(20);
              log.push("written m.py");
            },
          );
      },
    });
    scheduler = new Scheduler(fakePlan(nodes), hooks, 3);
    await scheduler.run();
    expect(log.indexOf("write m.py")).toBeGreaterThan(log.indexOf("end slow"));
    expect(log.indexOf("start later")).toBeGreaterThan(log.indexOf("written m.py"));
  });

  it("settles at once a node that needs no executor, and starts its dependents after it", async () => {
    const nodes: Record<string, FakeNode> = { mod: { admit: "done" }, f: { deps: ["mod"] } };
    const { hooks, log } = recording(nodes);
    await new Scheduler(fakePlan(nodes), hooks, 2).run();
    expect(log).toEqual(["settled mod", "start f", "end f", "settled f"]);
  });

  it("stops starting nodes when an admission says stop or a node does not settle, and lets the running ones finish", async () => {
    const stopAt: Record<string, FakeNode> = { a: { ms: 30 }, b: { ms: 5, admit: "stop" }, c: {} };
    const first = recording(stopAt);
    await new Scheduler(fakePlan(stopAt), first.hooks, 1).run();
    expect(first.log).toEqual(["start a", "end a", "settled a"]);

    const interrupted: Record<string, FakeNode> = { a: { ms: 5, outcome: "stop" }, b: { ms: 30 }, c: {} };
    const second = recording(interrupted);
    await new Scheduler(fakePlan(interrupted), second.hooks, 2).run();
    expect(second.log).toEqual(["start a", "start b", "end a", "end b", "settled b"]);
  });

  it("rejects with an executor's error once the running nodes finished", async () => {
    const nodes: Record<string, FakeNode> = { a: { ms: 5, outcome: "throw" }, b: { ms: 30 }, c: {} };
    const { hooks, log } = recording(nodes);
    await expect(new Scheduler(fakePlan(nodes), hooks, 2).run()).rejects.toThrow("a broke");
    expect(log).toEqual(["start a", "start b", "end a", "end b", "settled b"]);
  });
});
