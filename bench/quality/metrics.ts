import type { Checkpoint } from "../../src/record/checkpoint.js";

/** The PRD's quality figures of one run (section "Success metrics"): from its checkpoint alone. */
export interface QualityFigures {
  /** Leaves in the RPG. */
  leaves: number;
  passed: number;
  /** Leaves the model was asked to implement: passed and failed (skipped ones never were). */
  generated: number;
  /** Passed with their first implementation, no fix. */
  firstTry: number;
  /** Needed the debug loop: generated, not passed first try. */
  debugged: number;
  /** Of those, passed in the end. */
  debugPassed: number;
  /** Tokens of every request: nodes' and integration tests'. */
  tokens: number;
}

/** Targets from the PRD: 60% of nodes pass first try, 80% of those that need the debug loop pass through it. */
export const TARGETS = { firstTry: 0.6, debugSuccess: 0.8 } as const;

export function qualityOf(checkpoint: Checkpoint): QualityFigures {
  const leaves = Object.values(checkpoint.nodes).filter((entry) => entry.node_type !== "composite");
  const generated = leaves.filter((e) => e.status === "passed" || e.status === "failed");
  const firstTry = generated.filter((e) => e.status === "passed" && e.retry_count === 0).length;
  const debugged = generated.length - firstTry;
  const integrationTokens = Object.values(checkpoint.integration ?? {}).reduce((sum, r) => sum + (r.tokens?.total ?? 0), 0);
  return {
    leaves: leaves.length,
    passed: leaves.filter((e) => e.status === "passed").length,
    generated: generated.length,
    firstTry,
    debugged,
    debugPassed: generated.filter((e) => e.status === "passed" && e.retry_count > 0).length,
    tokens: leaves.reduce((sum, e) => sum + (e.tokens?.total ?? 0), 0) + integrationTokens,
  };
}

export const NO_FIGURES: QualityFigures = Object.freeze({
  leaves: 0,
  passed: 0,
  generated: 0,
  firstTry: 0,
  debugged: 0,
  debugPassed: 0,
  tokens: 0,
});

/** The figures of several runs, summed. */
export function addFigures(a: QualityFigures, b: QualityFigures): QualityFigures {
  const sum = { ...a };
  for (const key of Object.keys(sum) as (keyof QualityFigures)[]) sum[key] += b[key];
  return sum;
}

/** "67% (8 of 12)", or "–" when nothing was counted. */
export function share(part: number, whole: number): string {
  return whole === 0 ? "–" : `${Math.round((part / whole) * 100)}% (${part} of ${whole})`;
}
