import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder tests/helpers/example-setup.ts generates the shipped example into, once per test run. */
    sharedExampleRoot: string;
  }
}

export interface SharedExample {
  /** The generated package: read it, never change it (copy it first with `copySharedExample`). */
  dir: string;
  /** What `rpg-forge generate examples/statkit/rpg.json --replay … --replay-strict --branch-per-subgraph` returned and printed. */
  code: number | null;
  out: string;
  err: string;
}

/**
 * The shipped example as the CLI generated it for this test run (tests/helpers/example-setup.ts): the first
 * call starts the generation, and every call waits for it to end.
 */
export async function sharedExample(): Promise<SharedExample> {
  const root = inject("sharedExampleRoot");
  writeFileSync(join(root, "wanted"), "");
  const exit = join(root, "exit.json");
  while (!existsSync(exit)) await sleep(200);
  const { code, error } = JSON.parse(readFileSync(exit, "utf8")) as { code: number | null; error?: string };
  if (error !== undefined) throw new Error(`generating the shared example failed to start: ${error}`);
  return {
    dir: join(root, "statkit"),
    code,
    out: readFileSync(join(root, "stdout"), "utf8"),
    err: readFileSync(join(root, "stderr"), "utf8"),
  };
}

/** A copy of the generated example for a test that changes it (pytest's caches, pip's egg-info, commits). */
export function copySharedExample(example: SharedExample, to: string): string {
  cpSync(example.dir, to, { recursive: true, verbatimSymlinks: true });
  return to;
}
