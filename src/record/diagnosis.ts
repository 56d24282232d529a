import type { Diagnosis } from "./checkpoint.js";

/**
 * A diagnosis's votes as people and prompts read them (decision 0020): in the foundation, since the
 * engine quotes the split in its briefs and reasons, and the report and the PR comments show it.
 */

export type Vote = Diagnosis["votes"][number];
export type Verdict = Exclude<Vote["verdict"], "none">;

export const VERDICTS: readonly Verdict[] = ["implementation_bug", "test_issue", "environment_issue"];

/** "implementation_bug 2, test_issue 2, environment_issue 1": the split, for a reason and a report line. */
export function describeSplit(votes: readonly Vote[]): string {
  const parts = [...VERDICTS, "none" as const].flatMap((verdict) => {
    const n = votes.filter((vote) => vote.verdict === verdict).length;
    return n > 0 ? [`${verdict === "none" ? "no answer" : verdict} ${n}`] : [];
  });
  return parts.join(", ");
}
