import { spawn } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import type { Checkpoint } from "../../src/engine/checkpoint.js";
import { CheckpointStore } from "../../src/engine/checkpoint-journal.js";
import { runPlan } from "../../src/engine/run.js";
import { summarize } from "../../src/record/summary.js";
import { buildPlan } from "../../src/plan/plan.js";
import { loadRpg } from "../../src/rpg/load.js";
import { nodeProgramArgs } from "../helpers/node-program.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const FIXTURE = "tests/fixtures/rpg/twenty-nodes.json";

it("plans a 20-node, 3-subgraph graph, is killed midway and resumes where it stopped", async () => {
  const checkpointPath = join(tempDir(), "docs", "generation_checkpoint.json");
  const child = spawn(process.execPath, nodeProgramArgs("tests/helpers/slow-run.ts", FIXTURE, checkpointPath, "150", "new", "node_10"), {
    stdio: "ignore",
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));

  // Kill the run without warning once 6 leaves have passed: no chance to tidy up.
  let seen: Checkpoint | undefined;
  for (let i = 0; i < 400; i++) {
    await sleep(25);
    seen = await new CheckpointStore(checkpointPath).read().catch(() => undefined);
    if (seen && Object.values(seen.nodes).filter((e) => e.status === "passed" && e.node_type === "leaf").length >= 6) break;
  }
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");

  // The file was written atomically and the journal whole line by line: what the kill left is a whole checkpoint.
  const killed = (await new CheckpointStore(checkpointPath).read())!;
  const passedBefore = Object.keys(killed.nodes).filter((id) => killed.nodes[id]!.status === "passed");
  const inProgress = Object.keys(killed.nodes).filter((id) => killed.nodes[id]!.status === "in_progress");
  expect(passedBefore.length).toBeGreaterThanOrEqual(6);
  expect(passedBefore.length).toBeLessThan(20);
  expect(inProgress.length).toBeLessThanOrEqual(1);

  const loaded = await loadRpg(FIXTURE);
  if (!loaded.ok) throw new Error("fixture is invalid");
  const plan = buildPlan(loaded.value);
  const calls: string[] = [];
  const { checkpoint } = await runPlan({
    plan,
    checkpointPath,
    runId: "resume",
    rpgSha256: "fixture",
    mode: "resume",
    executor: async (node) => {
      calls.push(node.id);
      return node.id === "node_10" ? { status: "failed", iterations: 8, reason: "fixture failure" } : { status: "passed", iterations: 0 };
    },
  });

  // Nothing that passed before the kill ran again; the interrupted node did.
  expect(calls.filter((id) => passedBefore.includes(id))).toEqual([]);
  for (const id of inProgress) expect(calls).toContain(id);
  expect(calls).toEqual(
    plan.order.filter(
      (id) =>
        !passedBefore.includes(id) &&
        plan.nodes.get(id)!.node_type === "leaf" &&
        !["node_11", "node_12", "node_13", "node_19", "node_20"].includes(id),
    ),
  );

  // node_10 failed; everything downstream of it is skipped, not failed, and names it.
  const summary = summarize(checkpoint);
  expect(summary.counts).toMatchObject({ total: 17, passed: 11, failed: 1, skipped: 5, pending: 0, in_progress: 0 });
  expect(summary.skipped).toEqual(["node_11", "node_12", "node_13", "node_19", "node_20"].map((id) => ({ id, blockedBy: ["node_10"] })));
  expect(summary.subgraphs.map((s) => [s.id, s.passed, s.failed, s.skipped])).toEqual([
    ["export", 4, 0, 2],
    ["ingest", 5, 0, 0],
    ["transform", 2, 1, 3],
  ]);
});
