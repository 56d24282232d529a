// `npm test`: vitest with every temporary file of the run under one folder, removed when vitest exits.
//
// vitest ends its workers with SIGTERM, before any exit handler runs, so what a worker still held (the folders of idle
// pytest launchers, about 130 a run) stayed in the system's temp folder after every run. Plain JavaScript, not
// TypeScript: it runs before anything is compiled, with node alone.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import process from "node:process";
import { scratchParent } from "./test-scratch.mjs";

const root = mkdtempSync(join(scratchParent(), "rpg-forge-tests-"));
const manifest = createRequire(import.meta.url).resolve("vitest/package.json");
const vitest = join(dirname(manifest), "vitest.mjs");
const child = spawn(process.execPath, [vitest, "run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TMPDIR: root },
});
// Ctrl-C reaches vitest through the terminal's process group; this process only waits for it to finish. A SIGTERM or
// SIGHUP sent to this process alone (npm passes its own on) goes on to vitest, and the folder is removed when it exits.
process.on("SIGINT", () => {});
for (const name of ["SIGTERM", "SIGHUP"]) process.on(name, () => child.kill(name));
child.on("exit", (code, signal) => {
  try {
    // Retried: after a SIGTERM the sandboxes of vitest's workers may still be ending, and writing, for a moment.
    rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch (error) {
    process.stderr.write(`npm test: could not remove ${root}: ${error.message}\n`);
  }
  process.exit(code ?? (signal ? 1 : 0));
});
