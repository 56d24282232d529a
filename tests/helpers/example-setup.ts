import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { exampleGenerateArgs } from "./example-args.js";
import { nodeProgramArgs } from "./node-program.js";
import "./git-identity.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Strict: every prompt must match the recording byte for byte (by hash), so the prompts, failure
 * briefs included, are deterministic and the cassette is current. A branch per subgraph, as the Action runs it.
 */
const args = (out: string): string[] => [...exampleGenerateArgs(out), "--replay-strict", "--branch-per-subgraph"];

/**
 * vitest's globalSetup: the shipped example generated once per test run, by the CLI as a user runs it, into a
 * temporary folder removed after the run. It starts when the first test asks for it (`sharedExample()` writes
 * `wanted`), so a run of other files never pays for it, and writes `exit.json` when it is done.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "rpg-forge-example-"));
  project.provide("sharedExampleRoot", root);
  let closed: Promise<void> | undefined;
  let child: ChildProcess | undefined;
  const poll = setInterval(() => {
    if (!existsSync(join(root, "wanted"))) return;
    clearInterval(poll);
    ({ child, closed } = generate(root));
  }, 100).unref();
  return async () => {
    clearInterval(poll);
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await closed;
    rmSync(root, { recursive: true, force: true });
  };
}

function generate(root: string): { child: ChildProcess; closed: Promise<void> } {
  const out = createWriteStream(join(root, "stdout"));
  const err = createWriteStream(join(root, "stderr"));
  const child = spawn(process.execPath, nodeProgramArgs("src/cli/index.ts", ...args(join(root, "statkit"))), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.pipe(out);
  child.stderr!.pipe(err);
  let finished = false;
  const finish = (code: number | null, error?: string): void => {
    if (finished) return;
    finished = true;
    // Written whole, then renamed: a test never reads half of it.
    writeFileSync(join(root, "exit.json.tmp"), JSON.stringify({ code, error }));
    renameSync(join(root, "exit.json.tmp"), join(root, "exit.json"));
  };
  const closed = new Promise<void>((resolve) => {
    child.on("error", (e) => {
      finish(null, e.message);
      resolve();
    });
    child.on("close", (code) => {
      // Both streams on disk before a test that waits for exit.json reads them.
      let open = 2;
      const done = (): void => {
        if (--open > 0) return;
        finish(code);
        resolve();
      };
      out.end(done);
      err.end(done);
    });
  });
  return { child, closed };
}
