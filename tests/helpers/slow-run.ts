// A stand-in for `rpg-forge generate` until the TDD loop exists: runs the real engine
// on an RPG with an executor that takes `delay` ms per node, so a test can kill it
// midway. Usage: slow-run.ts <rpg.json> <checkpoint> <delay-ms> <mode> [failing ids...]
import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { runPlan } from "../../src/engine/run.js";
import { buildPlan } from "../../src/plan/plan.js";
import { loadRpg } from "../../src/rpg/load.js";

const [rpgPath, checkpointPath, delay, mode, ...failing] = process.argv.slice(2);
const loaded = await loadRpg(rpgPath!);
if (!loaded.ok) throw new Error("invalid RPG");
await runPlan({
  plan: buildPlan(loaded.value),
  checkpointPath: checkpointPath!,
  runId: `slow-${process.pid}`,
  rpgSha256: "fixture",
  mode: mode as "new" | "resume",
  executor: async (node) => {
    appendFileSync(`${checkpointPath}.calls`, `${node.id}\n`);
    await sleep(Number(delay));
    return failing.includes(node.id) ? { status: "failed", iterations: 8, reason: "fixture failure" } : { status: "passed", iterations: 0 };
  },
});
