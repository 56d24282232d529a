import { compareIds } from "../rpg/ids.js";
import type { Checkpoint, NodeStatus } from "./checkpoint.js";

export type StatusCounts = Record<NodeStatus, number> & { total: number };

export interface SubgraphCounts extends StatusCounts {
  id: string;
}

export interface FailedNode {
  id: string;
  subgraphId: string | undefined;
  reason: string;
  iterations: number;
}

export interface RunSummary {
  counts: StatusCounts;
  subgraphs: SubgraphCounts[];
  failed: FailedNode[];
  skipped: { id: string; blockedBy: string[] }[];
}

/**
 * Counts per status and per subgraph, from the checkpoint alone (so `status` works
 * without the RPG). Only leaves count: composite nodes are scaffolding and would
 * make a half-failed module look like progress.
 */
export function summarize(checkpoint: Checkpoint): RunSummary {
  const counts = emptyCounts();
  const bySubgraph = new Map<string, StatusCounts>();
  const failed: FailedNode[] = [];
  const skipped: RunSummary["skipped"] = [];
  for (const id of Object.keys(checkpoint.nodes).sort(compareIds)) {
    const entry = checkpoint.nodes[id]!;
    if (entry.node_type === "composite") continue;
    const subgraphId = entry.subgraph_id ?? "(none)";
    const sub = bySubgraph.get(subgraphId) ?? emptyCounts();
    bySubgraph.set(subgraphId, sub);
    for (const c of [counts, sub]) {
      c[entry.status]++;
      c.total++;
    }
    if (entry.status === "failed")
      failed.push({
        id,
        subgraphId: entry.subgraph_id,
        reason: entry.failure_reason ?? "no reason recorded",
        iterations: entry.retry_count,
      });
    if (entry.status === "skipped") skipped.push({ id, blockedBy: entry.blocked_by ?? [] });
  }
  const subgraphs = [...bySubgraph].sort(([a], [b]) => compareIds(a, b)).map(([id, c]) => ({ id, ...c }));
  return { counts, subgraphs, failed, skipped };
}

function emptyCounts(): StatusCounts {
  return { total: 0, pending: 0, in_progress: 0, passed: 0, failed: 0, skipped: 0 };
}
