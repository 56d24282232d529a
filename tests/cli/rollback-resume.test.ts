import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/engine/checkpoint.js";
import { findPython } from "../../src/sandbox/python.js";
import { runCli } from "../helpers/cli.js";
import { packageSuiteIn } from "../helpers/package-suite.js";

// Issue 13: rollback then --resume left a package importing code that was gone, because the
// commit rolled back to already held later subgraphs' code and a checkpoint that spoke of them.
// The diamond: base; left (voice.shout) and right (voice.quiet, whose function is whisper) on it,
// sharing src/dia/voice.py, right's node generated first; top on both.
const DIAMOND = fileURLToPath(new URL("../fixtures/diamond/", import.meta.url));
const RPG = join(DIAMOND, "rpg.json");
const CASSETTE = join(DIAMOND, "cassette.jsonl");
const NAMES: Record<string, string> = { "base.clean": "clean", "voice.shout": "shout", "voice.quiet": "whisper", "top.both": "both" };

const git = (dir: string, ...args: string[]): string => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
let python: string;
beforeAll(async () => {
  python = await findPython();
});

// Every `dia` import in the package and its tests, resolved: a module or a name that is not there is listed.
const IMPORT_CHECK = String.raw`
import ast, importlib, json, pathlib, sys
sys.path.insert(0, "src")
missing = []
def load(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
for path in sorted([*pathlib.Path("src").rglob("*.py"), *pathlib.Path("tests").rglob("*.py")]):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "dia":
            module = load(node.module)
            if module is None:
                missing.append(f"{path}: {node.module}")
                continue
            missing += [f"{path}: {node.module}.{a.name}" for a in node.names if not hasattr(module, a.name) and load(f"{node.module}.{a.name}") is None]
        elif isinstance(node, ast.Import):
            missing += [f"{path}: {a.name}" for a in node.names if a.name.split(".")[0] == "dia" and load(a.name) is None]
print(json.dumps(missing))
`;

function missingImports(dir: string): string[] {
  const result = spawnSync(python, ["-I", "-B", "-c", IMPORT_CHECK], { cwd: dir, encoding: "utf8" });
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as string[];
}

/** What a commit holds (defs, test blocks, exports) and what its checkpoint says: they agree in a true snapshot. */
interface CommitFacts {
  passed: string[];
  statuses: Record<string, string>;
  defs: string[];
  blocks: string[];
  api: string[];
}

function snapshotAt(dir: string, rev: string): CommitFacts {
  const checkpoint = JSON.parse(git(dir, "show", `${rev}:docs/generation_checkpoint.json`)) as Checkpoint;
  const paths = git(dir, "ls-tree", "-r", "--name-only", rev).split("\n");
  const show = (path: string): string => git(dir, "show", `${rev}:${path}`);
  const defs = paths
    .filter((p) => /^src\/dia\/(?!__init__).*\.py$/.test(p))
    .flatMap((p) => [...show(p).matchAll(/^def (\w+)/gm)].map((m) => m[1]!));
  const blocks = paths
    .filter((p) => p.startsWith("tests/"))
    .flatMap((p) => [...show(p).matchAll(/^# --- rpg-forge tests: (\S+) ---$/gm)].map((m) => m[1]!));
  const all = /^__all__ = \[(.*)\]$/m.exec(show("src/dia/__init__.py"))?.[1] ?? "";
  const statuses = Object.fromEntries(Object.entries(checkpoint.nodes).map(([id, entry]) => [id, entry.status]));
  const passed = Object.keys(statuses).filter((id) => statuses[id] === "passed");
  return {
    passed: passed.sort(),
    statuses,
    defs: defs.sort(),
    blocks: blocks.sort(),
    api: [...all.matchAll(/"(\w+)"/g)].map((m) => m[1]!).sort(),
  };
}

/** A commit whose code, tests and API are exactly its checkpoint's passed nodes'. */
function expectTrueSnapshot(dir: string, rev: string): void {
  const { passed, defs, blocks, api } = snapshotAt(dir, rev);
  const names = passed.map((id) => NAMES[id]!).sort();
  expect({ rev, defs, blocks, api }).toEqual({ rev, defs: names, blocks: passed, api: names });
}

describe("rollback to a subgraph, then generate --resume (issue 13, diamond)", () => {
  // One flow in three steps, each well within its time limit on a loaded machine (the flow as one test took 43 s of its
  // 60 in a clean-clone CI): the first run, the rollback, the resume. Each step needs the one before it.
  let root: string | undefined;
  let out: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "rpg-forge-test-"));
    out = join(root, "dia");
    const first = await runCli(
      "generate",
      RPG,
      "--out",
      out,
      "--replay",
      CASSETTE,
      "--branch-per-subgraph",
      "--mutants",
      "0",
      "--no-language-server",
    );
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("4 passed, 0 failed, 0 skipped of 4 nodes");
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("rolls back to a true snapshot of base and left", async () => {
    const rollback = await runCli("rollback", out, "--to", "left");
    expect(rollback.code, rollback.err).toBe(0);
    expect(rollback.out).toMatch(/^Rolled back to rpg\/[^/]+\/left \([0-9a-f]{7}\); 2 later commits undone\.$/m);
    expect(git(out, "status", "--porcelain")).toBe("");

    // HEAD holds base and left and nothing of right or top, and its checkpoint says so.
    const head = snapshotAt(out, "HEAD");
    expect(head.statuses).toEqual({ "base.clean": "passed", "voice.shout": "passed", "voice.quiet": "pending", "top.both": "pending" });
    expectTrueSnapshot(out, "HEAD");
    const onDisk = JSON.parse(readFileSync(join(out, "docs/generation_checkpoint.json"), "utf8")) as Checkpoint;
    expect(onDisk.nodes["voice.quiet"]!.attempts).toEqual([]);
    expect(onDisk.nodes["top.both"]!.attempts).toEqual([]);
    expect(git(out, "ls-tree", "-r", "--name-only", "HEAD")).not.toMatch(/top\.py$/m);
    const rolledBack = packageSuiteIn(python, out);
    expect(rolledBack.code, rolledBack.output).toBe(0);
    expect(rolledBack.passed).toEqual(["tests/test_base.py::test_clean", "tests/test_voice.py::test_shout"]);
    expect(missingImports(out)).toEqual([]);
  });

  it("resumes from there, regenerating right and top, every commit and PR branch a true snapshot", async () => {
    expect(snapshotAt(out, "HEAD").passed, "the rollback before this left base and left").toEqual(["base.clean", "voice.shout"]);
    const resumed = await runCli(
      "generate",
      RPG,
      "--out",
      out,
      "--replay",
      CASSETTE,
      "--resume",
      "--branch-per-subgraph",
      "--mutants",
      "0",
      "--no-language-server",
    );
    expect(resumed.code, resumed.err).toBe(0);
    const said = resumed.out + resumed.err;
    expect(said).toContain("Resuming run");
    expect(said).toContain("2 of 4 nodes to generate");
    expect([...said.matchAll(/✓ (\S+) passed/g)].map((m) => m[1])).toEqual(["voice.quiet", "top.both"]);
    expect(resumed.out).toContain("4 passed, 0 failed, 0 skipped of 4 nodes");

    const final = packageSuiteIn(python, out);
    expect(final.code, final.output).toBe(0);
    expect(final.passed).toEqual([
      "tests/test_base.py::test_clean",
      "tests/test_top.py::test_both",
      "tests/test_voice.py::test_shout",
      "tests/test_voice.py::test_whisper",
    ]);
    expect(missingImports(out)).toEqual([]);
    expect(git(out, "status", "--porcelain")).toBe("");
    expect(Object.values(snapshotAt(out, "HEAD").statuses)).toEqual(["passed", "passed", "passed", "passed"]);

    // Every commit on the branch, both runs', and every level of the stack of PR branches is a true snapshot. The resume
    // commits base's snapshot again on left's: it must leave out voice.py and test_voice.py, which the output held before
    // the resume but which hold only left's and right's code.
    for (const sha of git(out, "log", "--format=%H", "HEAD^{/chore: start rpg-forge run}..HEAD").split("\n")) expectTrueSnapshot(out, sha);
    const levels = git(out, "for-each-ref", "--format=%(refname:short)", "refs/heads/rpg/dia/").split("\n");
    expect(levels.sort()).toEqual(["rpg/dia/base", "rpg/dia/left", "rpg/dia/right", "rpg/dia/top"]);
    for (const level of levels) expectTrueSnapshot(out, level);
  });
});
