import type { Checkpoint, CheckpointEntry, NodeStatus } from "./checkpoint.js";

/** How far a node got: for nodes no part owns, a merge keeps the furthest. */
const RANK: Record<NodeStatus, number> = { passed: 5, failed: 4, skipped: 3, in_progress: 2, pending: 1 };

/** A checkpoint from one subgraph's branch: its own nodes' entries are the truth for them. */
export interface CheckpointPart {
  subgraphId: string;
  checkpoint: Checkpoint;
}

/**
 * One checkpoint out of the parts matrix mode leaves on the subgraph branches. Each
 * node's entry comes from its own subgraph's part (another branch may carry an older
 * copy of it, from before a rerun); a node whose subgraph has no part takes the entry
 * that got furthest (passed over failed over skipped over the rest), the later on a tie.
 */
export function mergeCheckpoints(parts: readonly CheckpointPart[]): Checkpoint | undefined {
  const [first, ...rest] = parts;
  if (!first) return undefined;
  const merged: Checkpoint = structuredClone(first.checkpoint);
  delete merged.pending_writes;
  // Each part checked the code its job had: none of them is the merged package's (decision 0028).
  delete merged.dependency_check;
  const owned = new Set<string>();
  const take = (part: CheckpointPart): void => {
    for (const [id, entry] of Object.entries(part.checkpoint.nodes)) {
      const own = entry.subgraph_id === part.subgraphId;
      const mine = merged.nodes[id];
      if (owned.has(id) && !own) continue;
      if (own || !mine || further(entry, mine)) merged.nodes[id] = structuredClone(entry);
      if (own) owned.add(id);
    }
  };
  // A subgraph's integration record, like its nodes' entries, comes from its own part when there is one.
  const integration: NonNullable<Checkpoint["integration"]> = {};
  const ownRecord = new Set<string>();
  const takeIntegration = (part: CheckpointPart): void => {
    for (const [id, record] of Object.entries(part.checkpoint.integration ?? {})) {
      const own = id === part.subgraphId;
      if (ownRecord.has(id) || (!own && integration[id])) continue;
      integration[id] = structuredClone(record);
      if (own) ownRecord.add(id);
    }
  };
  delete merged.integration;
  take(first);
  takeIntegration(first);
  for (const part of rest) {
    const other = part.checkpoint;
    if (other.created_at < merged.created_at) merged.created_at = other.created_at;
    if (other.updated_at > merged.updated_at) {
      merged.updated_at = other.updated_at;
      merged.run_id = other.run_id;
    }
    take(part);
    takeIntegration(part);
  }
  if (Object.keys(integration).length > 0) merged.integration = integration;
  return merged;
}

function further(a: CheckpointEntry, b: CheckpointEntry): boolean {
  const byRank = RANK[a.status] - RANK[b.status];
  return byRank !== 0 ? byRank > 0 : a.timestamp > b.timestamp;
}
