import { describe, expect, it } from "vitest";
import type { Checkpoint, CheckpointEntry } from "../../src/engine/checkpoint.js";
import { mergeCheckpoints } from "../../src/engine/checkpoint-merge.js";
import { dependencyCheckOf } from "../helpers/checkpoint.js";

const entry = (subgraph: string, status: CheckpointEntry["status"], timestamp: string): CheckpointEntry => ({
  status,
  timestamp,
  subgraph_id: subgraph,
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
const statuses = (cp: Checkpoint) => Object.fromEntries(Object.entries(cp.nodes).map(([id, e]) => [id, [e.status, e.timestamp]]));

describe("mergeCheckpoints", () => {
  it("keeps no part's dependency check, which read only the code its own job had", () => {
    const check = dependencyCheckOf();
    const stats = { ...checkpoint("r2", "11:00", { a: entry("stats", "passed", "11:00") }), dependency_check: check };
    const validation = { ...checkpoint("r3", "12:00", { b: entry("validation", "passed", "12:00") }), dependency_check: check };
    const merged = mergeCheckpoints([
      { subgraphId: "stats", checkpoint: stats },
      { subgraphId: "validation", checkpoint: validation },
    ])!;
    expect(Object.keys(merged.nodes).sort()).toEqual(["a", "b"]);
    expect(merged.dependency_check).toBeUndefined();
  });

  it("takes each subgraph's integration record from its own branch, a stale copy elsewhere notwithstanding", () => {
    const record = (passed: number) => ({
      status: "validated" as const,
      entries: ["v1"],
      exits: ["v1"],
      total: 5,
      passed,
      shipped: passed,
      failing: [],
      basis: String(passed),
    });
    const stats = { ...checkpoint("r2", "11:00", {}), integration: { validation: record(4), stats: record(5) } };
    const validation = { ...checkpoint("r3", "12:00", {}), integration: { validation: record(5) } };
    const merged = mergeCheckpoints([
      { subgraphId: "stats", checkpoint: stats },
      { subgraphId: "validation", checkpoint: validation },
    ])!;
    expect(merged.integration).toEqual({ stats: record(5), validation: record(5) });
  });

  it("takes each node from its own subgraph's branch, even when another branch's older copy got further", () => {
    // validation's branch was rerun: v1 fails now. stats' branch still carries v1 as it passed before.
    const validation = checkpoint("r3", "2026-11-22T12:00:00Z", {
      v1: entry("validation", "failed", "12:00"),
      s1: entry("stats", "pending", "09:00"),
    });
    const stats = checkpoint("r2", "2026-11-22T11:00:00Z", {
      v1: entry("validation", "passed", "10:00"),
      s1: entry("stats", "skipped", "11:00"),
    });
    const merged = mergeCheckpoints([
      { subgraphId: "stats", checkpoint: stats },
      { subgraphId: "validation", checkpoint: validation },
    ])!;
    expect(statuses(merged)).toEqual({ v1: ["failed", "12:00"], s1: ["skipped", "11:00"] });
    expect(merged).toMatchObject({ run_id: "r3", created_at: "2026-11-22T11:00:00Z", updated_at: "2026-11-22T12:00:00Z" });
    expect(stats.nodes.v1!.status).toBe("passed");
  });

  it("keeps the entry that got furthest, and the later on a tie, for a node whose subgraph has no branch", () => {
    const a = checkpoint("r1", "t1", { x: entry("lost", "failed", "10:00"), y: entry("lost", "skipped", "10:00") });
    const b = checkpoint("r2", "t2", { x: entry("lost", "passed", "09:00"), y: entry("lost", "skipped", "11:00") });
    const merged = mergeCheckpoints([
      { subgraphId: "a", checkpoint: a },
      { subgraphId: "b", checkpoint: b },
    ])!;
    expect(statuses(merged)).toEqual({ x: ["passed", "09:00"], y: ["skipped", "11:00"] });
  });

  it("drops the list of unwritten nodes and is undefined for no checkpoint", () => {
    const one = { ...checkpoint("r", "t", { a: entry("s", "passed", "t") }), pending_writes: ["a"] };
    expect(mergeCheckpoints([{ subgraphId: "s", checkpoint: one }])!.pending_writes).toBeUndefined();
    expect(mergeCheckpoints([])).toBeUndefined();
  });
});
