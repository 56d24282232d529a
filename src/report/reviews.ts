import type { CheckpointEntry, Review } from "../record/checkpoint.js";
import { code, prose } from "./markdown.js";

const VERDICT: Record<Review["verdict"], string> = { approved: "✅ approved", rejected: "❌ rejected", none: "– no verdict" };

/** Whether a node passed with a review's objection never resolved: the last review of its code rejected it. */
export function objectionStands(entry: CheckpointEntry | undefined): boolean {
  return entry?.status === "passed" && entry.reviews?.at(-1)?.verdict === "rejected";
}

/**
 * The report's Reviews section (decision 0027): each reviewed node's reviews in order, with the iteration whose
 * code was reviewed. Empty when no node was reviewed (the review step is off by default).
 */
export function renderReviews(ids: readonly string[], nodes: Readonly<Record<string, CheckpointEntry>>): string[] {
  const reviewed = ids.filter((id) => (nodes[id]?.reviews?.length ?? 0) > 0);
  if (reviewed.length === 0) return [];
  const lines = [
    "## Reviews",
    "",
    "Each node's passing code, reviewed by the model against its docstring; a rejection sent it back to the fix step (decision 0027).",
    "",
    "| Node | Iteration | Verdict | Reason |",
    "|------|-----------|---------|--------|",
  ];
  for (const id of reviewed)
    for (const review of nodes[id]!.reviews!)
      lines.push(`| ${code(id)} | ${review.iteration} | ${VERDICT[review.verdict]} | ${prose(review.reason, 300)} |`);
  const standing = reviewed.filter((id) => objectionStands(nodes[id]));
  if (standing.length > 0)
    lines.push("", `Passed with the last review's objection unresolved: ${standing.map(code).join(", ")}. Read them before merging.`);
  return [...lines, ""];
}

/** The nodes among `ids` that passed with an objection standing, with it, for their pull request. */
export function renderStandingObjections(ids: readonly string[], nodes: Readonly<Record<string, CheckpointEntry>>): string[] {
  return ids
    .filter((id) => objectionStands(nodes[id]))
    .map((id) => {
      const reviews = nodes[id]!.reviews!;
      const rejections = reviews.filter((r) => r.verdict === "rejected").length;
      return `- ${code(id)}: rejected ${rejections === 1 ? "once" : `${rejections} times`}; no fix passed its tests and the review, so the code that passed its tests stands. The objection: ${prose(reviews.at(-1)!.reason, 500)}`;
    });
}
