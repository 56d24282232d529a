import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointText, parseCheckpoint, readCheckpoint, writeCheckpoint, type Checkpoint } from "../../src/engine/checkpoint.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

const sample: Checkpoint = {
  version: 1,
  run_id: "r1",
  rpg_sha256: "ff",
  created_at: "2026-11-22T10:00:00.000Z",
  updated_at: "2026-11-22T10:05:00.000Z",
  nodes: {
    node_001: {
      status: "passed",
      timestamp: "2026-11-22T10:01:00.000Z",
      test_results: { passed: 3, failed: 0 },
      retry_count: 0,
      attempts: [],
    },
  },
};

describe("checkpoint files", () => {
  it("round-trips through an atomic write, leaving no temporary file", async () => {
    const dir = tempDir();
    const path = join(dir, "docs", "generation_checkpoint.json");
    await writeCheckpoint(path, sample);
    expect(await readCheckpoint(path)).toEqual(sample);
    expect(readdirSync(join(dir, "docs"))).toEqual(["generation_checkpoint.json"]);
  });

  it("writes the same bytes for the same state, whatever order a run set the fields in", () => {
    const checkpoint = parseCheckpoint(checkpointText(sample), "c.json");
    const entry = checkpoint.nodes["node_001"]!;
    // A run sets the outcome's fields first and the duration after; a file read back has the schema's order.
    const setLate = { ...checkpoint, nodes: { node_001: { diagnoses: [], ...entry, duration_ms: 5 } } };
    const setEarly = { ...checkpoint, nodes: { node_001: { duration_ms: 5, ...entry, diagnoses: [] } } };
    expect(checkpointText(setLate)).toBe(checkpointText(setEarly));
    expect(checkpointText(parseCheckpoint(checkpointText(setLate), "c.json"))).toBe(checkpointText(setLate));
  });

  it("writes a subgraph's integration record in the schema's order too, so a rerun that reads it back commits nothing", () => {
    const record = { status: "validated" as const, entries: ["a"], exits: ["b"], total: 2, passed: 2, shipped: 2, failing: [], basis: "x" };
    const late = { ...sample, integration: { lab: { ...record, file: "tests/integration/test_lab.py" } } };
    const early = { ...sample, integration: { lab: { file: "tests/integration/test_lab.py", ...record } } };
    expect(checkpointText(late)).toBe(checkpointText(early));
    expect(checkpointText(parseCheckpoint(checkpointText(late), "c.json"))).toBe(checkpointText(late));
  });

  it("returns undefined when there is no checkpoint", async () => {
    expect(await readCheckpoint(join(tempDir(), "none.json"))).toBeUndefined();
  });

  it("reads a checkpoint in the PRD's appendix B shape", () => {
    const appendixB = {
      node_001: { status: "passed", timestamp: "2026-02-07T10:35:12Z", test_results: { passed: 3, failed: 0 }, retry_count: 0 },
      node_002: {
        status: "failed",
        timestamp: "2026-02-07T10:40:45Z",
        test_results: { passed: 2, failed: 1 },
        retry_count: 8,
        failure_reason: "AssertionError: expected 5.0, got nan (after 8 debug iterations)",
      },
    };
    const checkpoint = parseCheckpoint(JSON.stringify(appendixB), "cp.json");
    expect(checkpoint.nodes.node_002).toMatchObject({ status: "failed", retry_count: 8, attempts: [] });
    expect(checkpoint.created_at).toBe("2026-02-07T10:35:12Z");
  });

  it.each([
    ["not JSON", "{", /not valid JSON/],
    ["an unknown status", JSON.stringify({ ...sample, nodes: { a: { ...sample.nodes.node_001, status: "done" } } }), /nodes\.a\.status/],
    ["a future version", JSON.stringify({ ...sample, version: 2 }), /version/],
  ])("reports a checkpoint with %s as corrupt, naming the file", (_what, content, message) => {
    expect(() => parseCheckpoint(content, "docs/cp.json")).toThrow(message);
    try {
      parseCheckpoint(content, "docs/cp.json");
    } catch (error) {
      expect(error).toMatchObject({ code: "CHECKPOINT_CORRUPT", at: { file: "docs/cp.json" } });
    }
  });

  it("fails with CHECKPOINT_WRITE_FAILED and keeps the previous checkpoint when the write fails", async () => {
    const dir = tempDir();
    const path = join(dir, "cp.json");
    await writeCheckpoint(path, sample);
    writeFileSync(join(dir, "blocker"), "");
    await expect(writeCheckpoint(join(dir, "blocker", "cp.json"), sample)).rejects.toMatchObject({ code: "CHECKPOINT_WRITE_FAILED" });
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(sample);
  });
});
