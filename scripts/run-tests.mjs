// `npm test`: vitest with every temporary file of the run under one folder, removed when vitest exits.
//
// vitest ends its workers with SIGTERM, before any exit handler runs, so what a worker still held (the folders of idle
// pytest launchers, about 130 a run) stayed in the system's temp folder after every run. Plain JavaScript, not
// TypeScript: it runs before anything is compiled, with node alone.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";

const root = mkdtempSync(join(tmpdir(), "rpg-forge-tests-"));
const manifest = createRequire(import.meta.url).resolve("vitest/package.json");
const vitest = join(dirname(manifest), "vitest.mjs");
const child = spawn(process.execPath, [vitest, "run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TMPDIR: root },
});
// Ctrl-C reaches vitest through the terminal's process group; this process only waits for it to finish.
process.on("SIGINT", () => {});
child.on("exit", (code, signal) => {
  rmSync(root, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
