import type { CheckpointEntry } from "../record/checkpoint.js";
import { code } from "./markdown.js";

/** What became of a node a reviewer asked to revise, as the run's checkpoint tells it. */
export type RevisionOutcome =
  | { kind: "revised"; iterations: number }
  | { kind: "kept"; reason: string }
  | { kind: "failed"; reason: string }
  | { kind: "not-run"; status: string };

/** The outcome of `runId`'s attempt at the node: a passed entry whose last attempt failed kept the reviewed version. */
export function revisionOutcome(entry: CheckpointEntry | undefined, runId: string): RevisionOutcome {
  const attempt = entry?.attempts.at(-1);
  if (!entry || !attempt || attempt.run_id !== runId) return { kind: "not-run", status: entry?.status ?? "not in the graph" };
  if (attempt.status === "passed" && entry.status === "passed") return { kind: "revised", iterations: attempt.iterations ?? 0 };
  const reason = attempt.failure_reason ?? entry.failure_reason ?? "its tests did not pass";
  if (attempt.status === "failed" && entry.status === "passed") return { kind: "kept", reason };
  if (entry.status === "failed") return { kind: "failed", reason };
  return { kind: "not-run", status: entry.status };
}

/** The reply to one inline comment: which node it revised and how that went, or why it revised nothing. */
export function renderReviewReply(target: { nodeId: string; outcome: RevisionOutcome } | { why: string }, command: string): string {
  if (!("nodeId" in target))
    return `rpg-forge revised nothing for this comment: ${target.why}. A comment on a node's code or tests revises that node.`;
  const node = code(target.nodeId);
  const again = `${code(`${command} revise ${target.nodeId}`)} with a note tries again.`;
  switch (target.outcome.kind) {
    case "revised": {
      const n = target.outcome.iterations;
      return `rpg-forge revised ${node} with this comment: its new tests and code pass${n > 0 ? ` after ${n} debug iteration${n === 1 ? "" : "s"}` : ""}. The new version is on this pull request.`;
    }
    case "kept":
      return `rpg-forge regenerated ${node} with this comment, but the new version failed its tests (${oneLine(target.outcome.reason)}), so the reviewed version stays. ${again}`;
    case "failed":
      return `rpg-forge could not make ${node} pass its tests with this comment: ${oneLine(target.outcome.reason)}. ${again}`;
    case "not-run":
      return `rpg-forge did not revise ${node} in this run (it is ${target.outcome.status}).`;
  }
}

function oneLine(text: string): string {
  const line = text.split("\n", 1)[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
