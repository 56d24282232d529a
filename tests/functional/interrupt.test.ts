import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { parseCheckpoint } from "../../src/engine/checkpoint.js";
import { CheckpointStore } from "../../src/engine/checkpoint-journal.js";
import { exampleGenerateArgs } from "../helpers/example-args.js";
import { nodeProgramArgs } from "../helpers/node-program.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

it("Ctrl-C stops generate with exit 130, a whole checkpoint and nothing half-written", async () => {
  const out = join(tempDir(), "statkit");
  const checkpointPath = join(out, "docs/generation_checkpoint.json");
  const child = spawn(process.execPath, nodeProgramArgs("src/cli/index.ts", ...exampleGenerateArgs(out)), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

  // Interrupt once two nodes have passed and a third is under way.
  for (let i = 0; i < 1200; i++) {
    await sleep(50);
    const checkpoint = await new CheckpointStore(checkpointPath).read().catch(() => undefined);
    const statuses = Object.values(checkpoint?.nodes ?? {}).map((e) => e.status);
    if (statuses.filter((s) => s === "passed").length >= 2 && statuses.includes("in_progress")) break;
  }
  child.kill("SIGINT");
  expect(await exited).toBe(130);
  expect(stderr).toContain("Stopping after the current step");
  expect(stderr).toContain("run again with --resume");

  const checkpoint = parseCheckpoint(readFileSync(checkpointPath, "utf8"), checkpointPath);
  const interrupted = Object.entries(checkpoint.nodes).filter(([, e]) => e.status === "in_progress");
  expect(interrupted).toHaveLength(1);
  expect(Object.values(checkpoint.nodes).filter((e) => e.status === "passed").length).toBeGreaterThanOrEqual(2);
  // The interrupted node's symbol and tests were undone.
  const [id] = interrupted[0]!;
  const name = id.split(".").pop()!;
  const files = [
    "src/statkit/validation.py",
    "src/statkit/stats/descriptive.py",
    "src/statkit/stats/spread.py",
    "src/statkit/report/format.py",
    "src/statkit/report/summary.py",
  ];
  for (const file of files) {
    const path = join(out, file);
    if (existsSync(path)) expect(readFileSync(path, "utf8")).not.toMatch(new RegExp(`^def ${name}\\(`, "m"));
  }
}, 240_000);
