import type { Checkpoint, CheckpointEntry, NodeStatus } from "./checkpoint.js";

/** How far a node got: a merge keeps the furthest. */
const RANK: Record<NodeStatus, number> = { passed: 5, failed: 4, skipped: 3, in_progress: 2, pending: 1 };

/**
 * One checkpoint out of several that share a plan, as matrix mode has them: each
 * subgraph's branch carries a checkpoint in which that subgraph's nodes are done and
 * the others are as its dependencies left them. Per node, the entry that got furthest
 * wins (passed over failed over skipped over the rest), the later one on a tie.
 */
export function mergeCheckpoints(checkpoints: readonly Checkpoint[]): Checkpoint | undefined {
  const [first, ...rest] = checkpoints;
  if (!first) return undefined;
  const merged: Checkpoint = structuredClone(first);
  delete merged.pending_writes;
  for (const other of rest) {
    if (other.created_at < merged.created_at) merged.created_at = other.created_at;
    if (other.updated_at > merged.updated_at) {
      merged.updated_at = other.updated_at;
      merged.run_id = other.run_id;
    }
    for (const [id, entry] of Object.entries(other.nodes)) {
      const mine = merged.nodes[id];
      if (!mine || further(entry, mine)) merged.nodes[id] = structuredClone(entry);
    }
  }
  return merged;
}

function further(a: CheckpointEntry, b: CheckpointEntry): boolean {
  const byRank = RANK[a.status] - RANK[b.status];
  return byRank !== 0 ? byRank > 0 : a.timestamp > b.timestamp;
}
