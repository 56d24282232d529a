import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds a file took, its hooks included, on a 2-core machine (a clean clone's `npm test` on 2026-11-28, three files
 * at a time), for the files that took six or more: the default reporter's figure per file, not the JSON report's, which
 * leaves out the time a file spends in beforeAll. (With ten or more, lsp/hung-server, which mostly waits out a server's
 * time limits, was left to vitest's order, ran last, and alone for the run's last 6 s.) vitest orders files by its
 * cache of the last run's durations, and CI always starts from a clean clone without one: there the order was the
 * files' discovery order, and the longest end-to-end files could start last and run alone at the end. Longest first,
 * the short files fill the workers in beside them.
 * A file missing here (new or fast) runs after these, in vitest's own order; a figure that goes stale costs only time.
 */
const SECONDS: Readonly<Record<string, number>> = {
  "tests/action/merge-diamond.test.ts": 97,
  "tests/action/action.test.ts": 90,
  "tests/cli/generate.test.ts": 64,
  "tests/cli/real-library.test.ts": 60,
  "tests/engine/hostile-replies.test.ts": 49,
  "tests/action/action-matrix.test.ts": 47,
  "tests/sandbox/signed-report.test.ts": 39,
  "tests/bench/quality.test.ts": 36,
  "tests/sandbox/launcher.test.ts": 33,
  "tests/engine/tdd-loop.test.ts": 30,
  "tests/engine/resume-history.test.ts": 29,
  "tests/action/review-revise.test.ts": 21,
  "tests/sandbox/hostile.test.ts": 21,
  "tests/cli/rollback-resume.test.ts": 19,
  "tests/engine/fix-tools.test.ts": 18,
  "tests/engine/integration-tests.test.ts": 16,
  "tests/workspace/stack.test.ts": 16,
  "tests/engine/generate-concurrency.test.ts": 15,
  "tests/helpers/github-stand-in.test.ts": 15,
  "tests/engine/diagnosis-vote.test.ts": 14,
  "tests/helpers/github-stand-in-merge.test.ts": 12,
  "tests/functional/interrupt.test.ts": 11,
  "tests/engine/review-step.test.ts": 10,
  "tests/lsp/hung-server.test.ts": 10,
  "tests/sandbox/mutants-run.test.ts": 10,
  "tests/action/label-generate.test.ts": 9,
  "tests/cli/ride-along.test.ts": 9,
  "tests/engine/revise.test.ts": 9,
  "tests/engine/fix-localization.test.ts": 8,
  "tests/sandbox/coverage.test.ts": 8,
  "tests/engine/fix-body.test.ts": 7,
  "tests/engine/real-python.test.ts": 7,
  "tests/engine/run-intelligence.test.ts": 7,
  "tests/functional/kill-at-random.test.ts": 7,
  "tests/functional/leaked-secret.test.ts": 7,
  "tests/action/action-input.test.ts": 6,
  "tests/helpers/github-stand-in-apps.test.ts": 6,
  "tests/sandbox/gate-bootstrap.test.ts": 6,
  "tests/sandbox/pytest-limits.test.ts": 6,
  "tests/sandbox/pytest-results.test.ts": 6,
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
