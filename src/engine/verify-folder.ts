import { join } from "node:path";
import type { PytestResult } from "../sandbox/pytest.js";
import { createWorkTree, layOver, removeWorkTree } from "../workspace/work-tree.js";
import { oneAtATime } from "./one-at-a-time.js";

/** Where the output's own suites run: a subgraph's integration tests and each snapshot's suite. */
export interface VerifyFolder {
  /** The output copied afresh with `files` laid over it (null: the file is not there), and `targets` run in it. */
  runTests(files: ReadonlyMap<string, string | null>, targets: readonly string[], signal?: AbortSignal): Promise<PytestResult>;
  remove(): Promise<void>;
}

type PytestIn = (cwd: string) => (targets: readonly string[], signal?: AbortSignal) => Promise<PytestResult>;

/**
 * One folder for both kinds of suite. In bubblewrap a sandbox serves the folder it mounted (src/sandbox/pytest.ts), so a
 * folder of each kind started a launcher of each, about 0.4 s of CPU at the end of every run (issue 16). A node's
 * bookkeeping runs one at a time, and so do these suites; the runs are chained all the same, since two at once would
 * each empty the folder the other is testing.
 */
export function verifyFolder(outDir: string, pytestIn: PytestIn): VerifyFolder {
  const dir = join(outDir, ".rpg-forge", "verify");
  const run = pytestIn(dir);
  const serially = oneAtATime();
  return {
    runTests: (files, targets, signal) =>
      serially(async () => {
        await createWorkTree(outDir, dir);
        await layOver(dir, files);
        return run(targets, signal);
      }),
    remove: () => removeWorkTree(dir),
  };
}
