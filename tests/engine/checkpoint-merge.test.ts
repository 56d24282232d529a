import { describe, expect, it } from "vitest";
import type { Checkpoint, CheckpointEntry } from "../../src/engine/checkpoint.js";
import { mergeCheckpoints } from "../../src/engine/checkpoint-merge.js";

const entry = (status: CheckpointEntry["status"], timestamp: string): CheckpointEntry => ({
  status,
  timestamp,
  test_results: { passed: 0, failed: 0 },
  retry_count: 0,
  attempts: [],
});
const checkpoint = (run: string, updated: string, nodes: Record<string, CheckpointEntry>): Checkpoint => ({
  version: 1,
  run_id: run,
  rpg_sha256: "abc",
  created_at: updated,
  updated_at: updated,
  nodes,
});

describe("mergeCheckpoints", () => {
  it("keeps, per node, the entry that got furthest, and the later one on a tie", () => {
    const validation = checkpoint("r1", "2026-11-22T10:00:00Z", {
      a: entry("passed", "10:00"),
      b: entry("pending", "09:00"),
      c: entry("failed", "10:00"),
    });
    const stats = checkpoint("r2", "2026-11-22T11:00:00Z", {
      a: entry("passed", "10:00"),
      b: entry("failed", "11:00"),
      c: entry("failed", "11:00"),
      d: entry("skipped", "11:00"),
    });
    const merged = mergeCheckpoints([validation, stats])!;
    expect(Object.fromEntries(Object.entries(merged.nodes).map(([id, e]) => [id, [e.status, e.timestamp]]))).toEqual({
      a: ["passed", "10:00"],
      b: ["failed", "11:00"],
      c: ["failed", "11:00"],
      d: ["skipped", "11:00"],
    });
    expect(merged).toMatchObject({ run_id: "r2", created_at: "2026-11-22T10:00:00Z", updated_at: "2026-11-22T11:00:00Z" });
    // The inputs are not touched.
    expect(validation.nodes.b!.status).toBe("pending");
  });

  it("drops the list of unwritten nodes and is undefined for no checkpoint", () => {
    const one = { ...checkpoint("r", "t", { a: entry("passed", "t") }), pending_writes: ["a"] };
    expect(mergeCheckpoints([one])!.pending_writes).toBeUndefined();
    expect(mergeCheckpoints([])).toBeUndefined();
  });
});
