import type { Checkpoint, CheckpointEntry } from "../../src/engine/checkpoint.js";
import type { RecordedDependencyCheck } from "../../src/record/dependency-check.js";

/** A checkpoint entry: a leaf with no tests run and no attempts unless `extra` says otherwise. */
export function checkpointEntry(status: CheckpointEntry["status"], extra: Partial<CheckpointEntry> = {}): CheckpointEntry {
  return { status, timestamp: "t", test_results: { passed: 0, failed: 0 }, retry_count: 0, attempts: [], node_type: "leaf", ...extra };
}

/** A checkpoint of run "r" holding `nodes`. */
export function checkpointOf(nodes: Checkpoint["nodes"]): Checkpoint {
  return { version: 1, run_id: "r", rpg_sha256: "", created_at: "t", updated_at: "t", nodes };
}

/** A recorded dependency check: every planned edge confirmed unless `over` says otherwise. */
export function dependencyCheckOf(over: Partial<RecordedDependencyCheck> = {}): RecordedDependencyCheck {
  return {
    target: 0.8,
    planned: 2,
    confirmed: 2,
    share: 1,
    meetsTarget: true,
    missing: [],
    unplanned: [],
    unchecked: 0,
    notFound: [],
    unreferenced: [],
    ...over,
  };
}
