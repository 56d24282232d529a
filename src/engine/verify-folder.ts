import { join } from "node:path";
import type { PytestResult } from "../sandbox/pytest.js";
import { createWorkTree, layOver, removeWorkTree } from "../workspace/work-tree.js";

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
  let last: Promise<unknown> = Promise.resolve();
  return {
    runTests(files, targets, signal) {
      const next = last.then(async () => {
        await createWorkTree(outDir, dir);
        await layOver(dir, files);
        return run(targets, signal);
      });
      last = next.catch(() => undefined);
      return next;
    },
    remove: () => removeWorkTree(dir),
  };
}
