import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds a file took, its hooks included, on a 2-core machine (a clean clone's `npm test` on 2026-11-28, three files
 * at a time), for the files that took ten or more: the default reporter's figure per file, not the JSON report's, which leaves out
 * the time a file spends in beforeAll. vitest orders files by its cache of the last run's durations, and CI always
 * starts from a clean clone without one: there the order was the files' discovery order, and the longest end-to-end
 * files could start last and run alone at the end. Longest first, the short files fill the workers in beside them.
 * A file missing here (new or fast) runs after these, in vitest's own order; a figure that goes stale costs only time.
 */
const SECONDS: Readonly<Record<string, number>> = {
  "tests/action/merge-diamond.test.ts": 97,
  "tests/action/action.test.ts": 84,
  "tests/cli/generate.test.ts": 67,
  "tests/action/action-matrix.test.ts": 47,
  "tests/bench/quality.test.ts": 38,
  "tests/cli/real-library.test.ts": 37,
  "tests/helpers/github-stand-in-merge.test.ts": 35,
  "tests/engine/hostile-replies.test.ts": 34,
  "tests/sandbox/signed-report.test.ts": 31,
  "tests/engine/resume-history.test.ts": 25,
  "tests/workspace/stack.test.ts": 24,
  "tests/engine/fix-body.test.ts": 23,
  "tests/sandbox/hostile.test.ts": 21,
  "tests/engine/tdd-loop.test.ts": 20,
  "tests/engine/generate-concurrency.test.ts": 20,
  "tests/action/review-revise.test.ts": 19,
  "tests/sandbox/launcher.test.ts": 19,
  "tests/cli/rollback-resume.test.ts": 17,
  "tests/engine/integration-tests.test.ts": 16,
  "tests/engine/fix-tools.test.ts": 16,
  "tests/functional/interrupt.test.ts": 14,
  "tests/cli/ride-along.test.ts": 13,
  "tests/functional/kill-at-random.test.ts": 13,
  "tests/cli/cli.test.ts": 12,
  "tests/sandbox/mutants-run.test.ts": 11,
  "tests/engine/diagnosis-vote.test.ts": 11,
  "tests/helpers/github-stand-in.test.ts": 11,
  "tests/action/label-generate.test.ts": 10,
};

/** vitest's sequencer, with the files known to be slow moved to the front, longest first. */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const seconds = (spec: TestSpecification): number => SECONDS[relative(this.ctx.config.root, spec.moduleId)] ?? 0;
    // Array.prototype.sort is stable: files of equal weight keep vitest's order.
    return ordered.sort((a, b) => seconds(b) - seconds(a));
  }
}
