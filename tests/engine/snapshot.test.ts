import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { testFileLookup } from "../../src/assembly/layout.js";
import { upsertTestBlock } from "../../src/assembly/test-blocks.js";
import { checkpointText, type Checkpoint, type CheckpointEntry } from "../../src/engine/checkpoint.js";
import { CHECKPOINT_PATH, REPORT_PATH } from "../../src/engine/output-paths.js";
import { buildSnapshot, projectCheckpoint, type SnapshotInput } from "../../src/engine/snapshot.js";
import { pendingEntry } from "../../src/engine/state.js";
import { buildPlan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import type { Rpg } from "../../src/rpg/schema.js";
import { findPython } from "../../src/sandbox/python.js";
import type { PytestResult } from "../../src/sandbox/pytest.js";
import { existingFiles } from "../../src/workspace/output-dir.js";
import { PackageFiles } from "../../src/workspace/package-files.js";
import { checkpointEntry } from "../helpers/checkpoint.js";
import { useTempDirs } from "../helpers/temp-dir.js";

// The diamond: base (clean); left (voice.shout) and right (voice.quiet, whose function is whisper) on it,
// sharing src/dia/voice.py, right's node generated first; top (both) on left and right.
const tempDir = useTempDirs();
const RPG_PATH = fileURLToPath(new URL("../fixtures/diamond/rpg.json", import.meta.url));
const rpg: Rpg = (() => {
  const loaded = parseRpgText(readFileSync(RPG_PATH, "utf8"), "rpg.json");
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.value;
})();
const plan = buildPlan(rpg);
const testFileOf = testFileLookup(rpg);
let python: string;
beforeAll(async () => {
  python = await findPython();
});

const CLEAN =
  'def clean(text: str) -> str:\n    """Trim text and collapse runs of whitespace into one space."""\n    return " ".join(text.split())\n';
// whisper alone uses unicodedata: the import goes with it.
const WHISPER =
  'def whisper(text: str) -> str:\n    """The cleaned text in lower case."""\n    return normalize("NFKC", clean(text)).lower()\n';
const SHOUT = 'def shout(text: str) -> str:\n    """The cleaned text in upper case."""\n    return clean(text).upper()  # as tested\n';
const VOICE = `from unicodedata import normalize\n\nfrom dia.base import clean\n\n\n${WHISPER}\n\n${SHOUT}`;
const CLEAN_TEST = 'from dia.base import clean\n\n\ndef test_clean():\n    assert clean("  a   b \\n") == "a b"\n';
const WHISPER_TEST = 'from dia.voice import whisper\n\n\ndef test_whisper():\n    assert whisper(" Hi  THERE ") == "hi there"\n';
const SHOUT_TEST = 'from dia.voice import shout\n\n\ndef test_shout():\n    assert shout(" hi  there ") == "HI THERE"\n';

/** The output as the loop leaves it once base, right's whisper and left's shout passed (top still to come). */
function output(extra: Record<string, string> = {}): string {
  const root = tempDir();
  const files: Record<string, string> = {
    "pytest.ini": "[pytest]\npythonpath = src .\ntestpaths = tests\naddopts = --import-mode=importlib\n",
    "src/dia/__init__.py": "",
    "src/dia/base.py": CLEAN,
    "src/dia/voice.py": VOICE,
    "tests/test_base.py": upsertTestBlock("", "base.clean", CLEAN_TEST),
    "tests/test_voice.py": upsertTestBlock(upsertTestBlock("", "voice.quiet", WHISPER_TEST), "voice.shout", SHOUT_TEST),
    ...extra,
  };
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  return root;
}

/** A node's entry as a run leaves it: one attempt per [run, start, end]. */
function entry(id: string, status: CheckpointEntry["status"], attempts: [string, string, string][]): CheckpointEntry {
  const node = plan.nodes.get(id)!;
  return checkpointEntry(status, {
    timestamp: attempts.at(-1)?.[2] ?? "2026-01-01T00:00:00.000Z",
    subgraph_id: node.subgraph_id,
    spec_sha256: pendingEntry(node, "").spec_sha256!,
    retry_count: Math.max(0, attempts.length - 1),
    test_results: { passed: status === "passed" ? 1 : 0, failed: 0 },
    attempts: attempts.map(([run_id, started_at, finished_at]) => ({ run_id, started_at, finished_at, status })),
  });
}

/** base in run-1, then a resume (run-2) that did right's whisper before left's shout; top never tried. */
function runCheckpoint(): Checkpoint {
  return {
    version: 1,
    run_id: "run-2",
    rpg_sha256: "sha",
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:09.000Z",
    nodes: {
      "base.clean": entry("base.clean", "passed", [["run-1", "2026-01-01T00:00:01.000Z", "2026-01-01T00:00:02.000Z"]]),
      "voice.quiet": entry("voice.quiet", "passed", [["run-2", "2026-01-01T00:00:03.000Z", "2026-01-01T00:00:04.000Z"]]),
      "voice.shout": entry("voice.shout", "passed", [["run-2", "2026-01-01T00:00:05.000Z", "2026-01-01T00:00:06.000Z"]]),
      "top.both": pendingEntry(plan.nodes.get("top.both")!, "2026-01-01T00:00:00.000Z"),
    },
  };
}

describe("projectCheckpoint", () => {
  it("keeps the entries of the subgraphs done and makes every other node a fresh pending entry, in plan order", () => {
    const checkpoint = runCheckpoint();
    const projected = projectCheckpoint(checkpoint, plan, new Set(["base", "left"]));
    expect(Object.keys(projected.nodes)).toEqual(plan.order);
    expect(projected.nodes["base.clean"]).toEqual(checkpoint.nodes["base.clean"]);
    expect(projected.nodes["voice.shout"]).toEqual(checkpoint.nodes["voice.shout"]);
    // A copy: a later change to the run's checkpoint does not reach a snapshot already built.
    expect(projected.nodes["voice.shout"]).not.toBe(checkpoint.nodes["voice.shout"]);
    expect(projected.nodes["voice.quiet"]).toEqual(pendingEntry(plan.nodes.get("voice.quiet")!, checkpoint.created_at));
    expect(projected.nodes["top.both"]).toEqual(pendingEntry(plan.nodes.get("top.both")!, checkpoint.created_at));
    expect(projected).toMatchObject({ version: 1, rpg_sha256: "sha", created_at: checkpoint.created_at });
  });

  it("makes a node of a subgraph done that the checkpoint lacks a pending entry", () => {
    const checkpoint = runCheckpoint();
    delete checkpoint.nodes["voice.shout"];
    const projected = projectCheckpoint(checkpoint, plan, new Set(["base", "left"]));
    expect(projected.nodes["voice.shout"]).toEqual(pendingEntry(plan.nodes.get("voice.shout")!, checkpoint.created_at));
  });

  it("takes its run id and time from the nodes it holds, not from the run", () => {
    const checkpoint = runCheckpoint();
    const upToLeft = projectCheckpoint(checkpoint, plan, new Set(["base", "left"]));
    expect([upToLeft.run_id, upToLeft.updated_at]).toEqual(["run-2", "2026-01-01T00:00:06.000Z"]);
    const base = projectCheckpoint(checkpoint, plan, new Set(["base"]));
    expect([base.run_id, base.updated_at]).toEqual(["run-1", "2026-01-01T00:00:02.000Z"]);
    const none = projectCheckpoint(checkpoint, plan, new Set());
    expect([none.run_id, none.updated_at]).toEqual(["run-2", checkpoint.created_at]);
  });

  it("projects two checkpoints that differ only in a later subgraph's attempts to the same bytes", () => {
    const first = runCheckpoint();
    // A third run tried right's node again and failed, after left was done: nothing of it belongs in {base, left}.
    const later = runCheckpoint();
    later.run_id = "run-3";
    later.updated_at = "2026-01-02T00:00:21.000Z";
    later.nodes["voice.quiet"] = entry("voice.quiet", "failed", [
      ["run-2", "2026-01-01T00:00:03.000Z", "2026-01-01T00:00:04.000Z"],
      ["run-3", "2026-01-02T00:00:20.000Z", "2026-01-02T00:00:21.000Z"],
    ]);
    const done = new Set(["base", "left"]);
    expect(checkpointText(projectCheckpoint(later, plan, done))).toBe(checkpointText(projectCheckpoint(first, plan, done)));
    // With right in the snapshot its attempts are what it records.
    const withRight = new Set(["base", "left", "right"]);
    expect(checkpointText(projectCheckpoint(later, plan, withRight))).not.toBe(checkpointText(projectCheckpoint(first, plan, withRight)));
    expect(projectCheckpoint(later, plan, withRight).run_id).toBe("run-3");
  });
});

interface TestRun {
  targets: string[];
  files: Map<string, string | null>;
  /** The test files' contents when the suite ran. */
  tests: Record<string, string | null | undefined>;
}

/** buildSnapshot over a real PackageFiles and python, with a fake suite that passes and records what it was asked to run. */
async function snapshot(root: string, subgraphs: string[], extra: Partial<SnapshotInput> = {}) {
  const runs: TestRun[] = [];
  const reported: Checkpoint[] = [];
  const result = await buildSnapshot({
    rpg,
    plan,
    checkpoint: runCheckpoint(),
    output: await PackageFiles.open(root),
    subgraphs: new Set(subgraphs),
    python,
    model: "m",
    testFileOf,
    preexisting: new Set(),
    runTests: async (files, targets) => {
      const map = files as Map<string, string | null>;
      runs.push({ targets: [...targets], files: map, tests: Object.fromEntries(targets.map((t) => [t, map.get(t)])) });
      const tests = targets.map((t) => ({ id: `${t}::test`, name: "test", status: "passed", durationMs: 0 }));
      return { exitCode: 0, timedOut: false, output: "", tests, junitXml: undefined, durationMs: 0 } as unknown as PytestResult;
    },
    renderReport: (checkpoint) => {
      reported.push(checkpoint);
      return `report of ${Object.keys(checkpoint.nodes)
        .filter((id) => checkpoint.nodes[id]!.status === "passed")
        .join(", ")}\n`;
    },
    ...extra,
  });
  return { ...result, runs, reported };
}

describe("buildSnapshot: the package once base and left are done, from an output that holds right's code too", () => {
  it("takes whisper's def, its own import and its test block out of the shared files and keeps shout byte for byte", async () => {
    const root = output();
    const { files } = await snapshot(root, ["base", "left"]);
    expect(files.get("src/dia/voice.py")).toBe(`from dia.base import clean\n\n\n${SHOUT}`);
    expect(files.get("tests/test_voice.py")).toBe(upsertTestBlock("", "voice.shout", SHOUT_TEST));
    expect(files.get("src/dia/base.py")).toBe(CLEAN);
    expect(files.get("tests/test_base.py")).toBe(upsertTestBlock("", "base.clean", CLEAN_TEST));
    // top was never generated: its files are not in the snapshot.
    expect(files.get("src/dia/top.py")).toBeNull();
    expect(files.get("tests/test_top.py")).toBeNull();
    // The output itself is not touched: the snapshot is laid over a copy to test and commit.
    expect(readFileSync(join(root, "src/dia/voice.py"), "utf8")).toBe(VOICE);
  });

  it("exports clean and shout only from src/dia/__init__.py, and records whisper as pending everywhere", async () => {
    const { files, checkpoint, reported } = await snapshot(output(), ["base", "left"]);
    const init = files.get("src/dia/__init__.py")!;
    expect(init).toContain('__all__ = ["clean", "shout"]');
    expect(init).toContain("from dia.base import clean\nfrom dia.voice import shout\n");
    expect(init).not.toContain("whisper");
    expect(checkpoint).toEqual(projectCheckpoint(runCheckpoint(), plan, new Set(["base", "left"])));
    expect(files.get(CHECKPOINT_PATH)).toBe(checkpointText(checkpoint));
    expect(reported).toEqual([checkpoint]);
    expect(files.get(REPORT_PATH)).toBe("report of base.clean, voice.shout\n");
    const exported = JSON.parse(files.get("docs/rpg.json")!) as { nodes: { id: string; status: string }[] };
    expect(Object.fromEntries(exported.nodes.map((n) => [n.id, n.status]))).toEqual({
      "base.clean": "passed",
      "voice.shout": "passed",
      "voice.quiet": "pending",
      "top.both": "pending",
    });
    expect(files.get("README.md")).toContain("2 of 4 functions pass their tests");
    expect(files.get("README.md")).toContain(
      "`dia.voice.whisper(text: str) -> str`: The cleaned text in lower case. _(not generated: pending)_",
    );
  });

  it("runs exactly the snapshot's test files, as the snapshot holds them", async () => {
    const { files, runs, assembly } = await snapshot(output(), ["base", "left"]);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.targets).toEqual(["tests/test_base.py", "tests/test_voice.py"]);
    expect(runs[0]!.files).toBe(files);
    expect(runs[0]!.tests).toEqual({
      "tests/test_base.py": upsertTestBlock("", "base.clean", CLEAN_TEST),
      "tests/test_voice.py": upsertTestBlock("", "voice.shout", SHOUT_TEST),
    });
    expect(assembly.suite).toEqual({ exitCode: 0, passed: 2, failed: 0, total: 2 });
  });

  it("never removes a file the output held before the run that holds anything of a person's: it keeps it without the later code", async () => {
    // A person's own top.py (top never generated) and helper in voice.py, and a test of theirs in test_voice.py.
    const mine = "def _helper():\n    return 1\n";
    const root = output({
      "src/dia/top.py": "# my notes\nTODO = 1\n",
      "src/dia/voice.py": `${mine}\n\n${VOICE}`,
      "tests/test_voice.py": `def test_mine():\n    pass\n\n\n${upsertTestBlock(upsertTestBlock("", "voice.quiet", WHISPER_TEST), "voice.shout", SHOUT_TEST)}`,
    });
    const theirs = ["src/dia/top.py", "src/dia/voice.py", "tests/test_voice.py"];
    const kept = await snapshot(root, ["base"], { preexisting: new Set(theirs) });
    expect(kept.files.has("src/dia/top.py")).toBe(false);
    // The person's own code stays; the later nodes' code in their file does not, in the commit and in the suite alike.
    expect(kept.files.get("src/dia/voice.py")).toContain("def _helper():");
    expect(kept.files.get("src/dia/voice.py")).not.toMatch(/shout|whisper/);
    expect(kept.files.get("tests/test_voice.py")).toContain("def test_mine():");
    expect(kept.files.get("tests/test_voice.py")).not.toMatch(/shout|whisper/);
    // Nothing else is taken out: the node never generated, and the integration tests of subgraphs not done.
    const nulls = [...kept.files].filter(([, content]) => content === null).map(([path]) => path);
    expect(nulls.filter((path) => !path.startsWith("tests/integration/"))).toEqual(["tests/test_top.py"]);
    // Without them in the output before the run, the same files are rpg-forge's and are not in a snapshot of base alone.
    const removed = await snapshot(root, ["base"]);
    for (const path of theirs) expect(removed.files.get(path), path).toBeNull();
  });

  it("removes a file the output held before the run that holds only later nodes' code, as a resume after a rollback finds it", async () => {
    const root = output();
    // On a resume every file rpg-forge wrote earlier was there before the run: the snapshots are those of a fresh run all the same.
    const preexisting = await existingFiles(root);
    expect(preexisting).toContain("src/dia/voice.py");
    for (const subgraphs of [["base"], ["base", "left"]]) {
      const resumed = await snapshot(root, subgraphs, { preexisting });
      const fresh = await snapshot(root, subgraphs);
      expect(resumed.files, subgraphs.join()).toEqual(fresh.files);
    }
    const base = await snapshot(root, ["base"], { preexisting });
    expect(base.files.get("src/dia/voice.py")).toBeNull();
    expect(base.files.get("tests/test_voice.py")).toBeNull();
    expect(base.runs[0]!.targets).toEqual(["tests/test_base.py"]);
  });
});
