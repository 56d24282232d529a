import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeCheckpoint, type Checkpoint } from "../../src/engine/checkpoint.js";
import { CheckpointStore, journalPathFor } from "../../src/engine/checkpoint-journal.js";
import { checkpointEntry, checkpointOf } from "../helpers/checkpoint.js";

/** Issue 16: the checkpoint as a compacted file plus an append-only journal; a crash loses at most what was in flight. */

describe("the checkpoint's journal", () => {
  let dir: string;
  let path: string;
  let store: CheckpointStore;
  const fresh = (): Checkpoint =>
    checkpointOf({ a: checkpointEntry("pending"), b: checkpointEntry("pending"), c: checkpointEntry("pending") });
  const statuses = (cp: Checkpoint | undefined) => Object.fromEntries(Object.entries(cp!.nodes).map(([id, e]) => [id, e.status]));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "rpg-journal-"));
    path = join(dir, "checkpoint.json");
    store = new CheckpointStore(path);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the file with every journaled change applied, the checkpoint's own fields included", async () => {
    const cp = fresh();
    await store.compact(cp);
    cp.nodes.a!.status = "passed";
    cp.pending_writes = ["a"];
    await store.record(cp, ["a"]);
    cp.nodes.b!.status = "in_progress";
    delete cp.pending_writes;
    cp.updated_at = "t2";
    await store.record(cp, ["b"]);

    const read = await new CheckpointStore(path).read();
    expect(statuses(read)).toEqual({ a: "passed", b: "in_progress", c: "pending" });
    expect(read!.pending_writes).toBeUndefined();
    expect(read!.updated_at).toBe("t2");
    // The file itself was written once: the changes are only in the journal.
    expect(statuses(JSON.parse(readFileSync(path, "utf8")) as Checkpoint)).toEqual({ a: "pending", b: "pending", c: "pending" });
  });

  it("journals a subgraph's integration record when it changes, and only then", async () => {
    const cp = fresh();
    await store.compact(cp);
    const record = {
      status: "validated" as const,
      entries: ["a"],
      exits: ["c"],
      total: 5,
      passed: 4,
      shipped: 4,
      file: "tests/integration/test_lab.py",
      failing: [{ name: "tests/integration/test_lab.py::test_x", message: "assert 1 == 2" }],
      basis: "0123",
    };
    cp.integration = { lab: record };
    await store.record(cp, [], ["lab"]);
    cp.nodes.a!.status = "passed";
    await store.record(cp, ["a"]);

    const read = await new CheckpointStore(path).read();
    expect(read!.integration).toEqual({ lab: record });
    const lines = readFileSync(journalPathFor(path), "utf8").trim().split("\n").slice(1);
    expect(lines.map((line) => "integration" in (JSON.parse(line) as object))).toEqual([true, false]);
  });

  it("drops a last line whose write did not finish, and refuses a damaged line before it", async () => {
    const cp = fresh();
    await store.compact(cp);
    cp.nodes.a!.status = "passed";
    await store.record(cp, ["a"]);
    const journal = journalPathFor(path);
    appendFileSync(journal, '{"top": {"run_id": "r", "nodes');

    expect(statuses(await store.read())).toEqual({ a: "passed", b: "pending", c: "pending" });

    appendFileSync(journal, "\n");
    cp.nodes.b!.status = "passed";
    await store.record(cp, ["b"]);
    await expect(store.read()).rejects.toMatchObject({ code: "CHECKPOINT_CORRUPT", at: { file: journal } });
  });

  it("ignores a journal older than the file, as a crash between writing the file and starting its journal leaves it", async () => {
    const cp = fresh();
    await store.compact(cp);
    cp.nodes.a!.status = "failed";
    await store.record(cp, ["a"]);
    // A compaction's first half: the file is written whole (a now passed), the old journal is still there.
    cp.nodes.a!.status = "passed";
    await writeCheckpoint(path, cp);

    expect(statuses(await store.read())).toEqual({ a: "passed", b: "pending", c: "pending" });
  });

  it("compacts once the journal outgrows the file, so a long run's writes stay in proportion to its changes", async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `n${i}`);
    const cp = checkpointOf(Object.fromEntries(ids.map((id) => [id, checkpointEntry("pending")])));
    await store.compact(cp);
    const fileSize = statSync(path).size;
    for (const [i, id] of ids.entries()) {
      cp.nodes[id]!.status = "passed";
      await store.record(cp, [id]);
      expect(statSync(journalPathFor(path)).size, `after ${i + 1} records`).toBeLessThanOrEqual(Math.max(fileSize, 64 * 1024) + 2_000);
    }
    expect(Object.values((await store.read())!.nodes).every((e) => e.status === "passed")).toBe(true);
  });

  it("writes no secret, and never through a link put in the journal's place", async () => {
    const cp = fresh();
    await store.compact(cp);
    const secret = `sk-${"b".repeat(24)}`;
    cp.nodes.a!.failure_reason = `the test printed ${secret}`;
    await store.record(cp, ["a"]);
    expect(readFileSync(journalPathFor(path), "utf8")).not.toContain(secret);

    // Planted after a compaction, before the new journal's first line.
    await store.compact(cp);
    const target = join(dir, "elsewhere.txt");
    writeFileSync(target, "");
    unlinkSync(journalPathFor(path));
    symlinkSync(target, journalPathFor(path));
    await expect(store.record(cp, ["a"])).rejects.toMatchObject({ code: "CHECKPOINT_WRITE_FAILED" });
    expect(readFileSync(target, "utf8")).toBe("");
  });

  it("keeps an output's journal in rpg-forge's own folder, which git ignores", () => {
    expect(journalPathFor("/out/docs/generation_checkpoint.json")).toBe("/out/.rpg-forge/checkpoint.journal");
    expect(journalPathFor("/tmp/x/checkpoint.json")).toBe("/tmp/x/checkpoint.json.journal");
  });
});
