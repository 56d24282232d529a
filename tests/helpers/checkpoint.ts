import type { Checkpoint, CheckpointEntry } from "../../src/engine/checkpoint.js";

/** A checkpoint entry: a leaf with no tests run and no attempts unless `extra` says otherwise. */
export function checkpointEntry(status: CheckpointEntry["status"], extra: Partial<CheckpointEntry> = {}): CheckpointEntry {
  return { status, timestamp: "t", test_results: { passed: 0, failed: 0 }, retry_count: 0, attempts: [], node_type: "leaf", ...extra };
}

/** A checkpoint of run "r" holding `nodes`. */
export function checkpointOf(nodes: Checkpoint["nodes"]): Checkpoint {
  return { version: 1, run_id: "r", rpg_sha256: "", created_at: "t", updated_at: "t", nodes };
}
