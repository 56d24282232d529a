import type { CheckpointEntry, Diagnosis } from "../record/checkpoint.js";
import { describeSplit } from "../record/diagnosis.js";
import { prose } from "./markdown.js";

const DECISION: Record<Diagnosis["decision"], string> = {
  implementation_bug: "implementation bug: fix the code",
  test_issue: "test issue: new tests",
  environment_issue: "environment issue: node failed",
  needs_human_review: "no majority: needs human review",
  flaky: "flaky tests: new tests",
  no_votes: "no votes cast: fixes go on",
};

/** When a diagnosis came: at the implementation's first failure, or after a fix. */
const when = (iteration: number): string => (iteration === 0 ? "implementation" : `fix ${iteration}`);

/** What a diagnosis's votes said, or for flaky tests, what passed when run again. */
function split(diagnosis: Diagnosis): string {
  if (diagnosis.decision === "flaky") return `passed when run again: ${(diagnosis.flaky_tests ?? []).join(", ")}`;
  return describeSplit(diagnosis.votes);
}

/**
 * A node's diagnoses as a table (after which attempt, the split, the decision) and each vote's
 * reason below it, for the report and the failed-node comment (decision 0020). Model text goes
 * through `prose`, so a reason cannot break the table or ping anyone.
 */
export function renderDiagnoses(diagnoses: readonly Diagnosis[]): string[] {
  const lines = ["| After | Votes | Decision |", "|-------|-------|----------|"];
  for (const d of diagnoses) lines.push(`| ${when(d.iteration)} | ${prose(split(d), 200)} | ${DECISION[d.decision]} |`);
  const reasons = diagnoses.flatMap((d) =>
    d.votes.map(
      (v) =>
        `- ${when(d.iteration)}, ${v.verdict === "none" ? "no answer" : v.verdict}${v.temperature === undefined ? "" : ` at ${v.temperature}`}: ${prose(v.reason, 300)}`,
    ),
  );
  return reasons.length > 0 ? [...lines, "", ...reasons] : lines;
}

/** The nodes with diagnoses, in order: for the report's section. */
export function diagnosedNodes(order: readonly string[], nodes: Readonly<Record<string, CheckpointEntry>>): string[] {
  return order.filter((id) => (nodes[id]?.diagnoses?.length ?? 0) > 0);
}
