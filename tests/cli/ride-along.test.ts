import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/engine/checkpoint.js";
import { findPython } from "../../src/sandbox/python.js";
import { runCli } from "../helpers/cli.js";
import { packageSuiteIn } from "../helpers/package-suite.js";
import { useTempDirs } from "../helpers/temp-dir.js";

// The diamond (base; left's voice.shout and right's voice.quiet, whose function is whisper, sharing
// src/dia/voice.py, whisper generated first; top on both), with shout's tests importing whisper too.
// They pass at shout's gate, whisper being there already, but the package of base and left alone
// fails them: left's snapshot is not committed alone and rides along with right's commit.
const tempDir = useTempDirs();
const DIAMOND = fileURLToPath(new URL("../fixtures/diamond/", import.meta.url));
const RPG = join(DIAMOND, "rpg.json");

const git = (dir: string, ...args: string[]): string => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
let python: string;
beforeAll(async () => {
  python = await findPython();
});

interface CassetteRecord {
  key: { node_id: string; kind: string; attempt: number };
  response: { content: string };
}

/** The diamond's cassette with shout's tests importing whisper as well. */
function leaningCassette(dir: string): string {
  const records = readFileSync(join(DIAMOND, "cassette.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as CassetteRecord);
  const tests = records.find((r) => r.key.node_id === "voice.shout" && r.key.kind === "tests")!;
  const reply = JSON.parse(tests.response.content) as { test_code: string };
  expect(reply.test_code).toContain("from dia.voice import shout\n");
  reply.test_code = reply.test_code.replace("from dia.voice import shout\n", "from dia.voice import shout, whisper\n");
  tests.response.content = JSON.stringify(reply);
  const path = join(dir, "cassette.jsonl");
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

/** A commit's tree in a directory of its own. */
function checkOut(out: string, rev: string): string {
  const dir = join(tempDir(), "tree");
  mkdirSync(dir);
  const tar = join(dir, "..", "tree.tar");
  git(out, "archive", "--format=tar", "-o", tar, rev);
  execFileSync("tar", ["-xf", tar, "-C", dir]);
  return dir;
}

describe("a subgraph whose snapshot fails without later code rides along with the next commit", () => {
  it("commits left with right, says so, and ends with a passing package", async () => {
    const out = join(tempDir(), "dia");
    const result = await runCli(
      "generate",
      RPG,
      "--out",
      out,
      "--replay",
      leaningCassette(tempDir()),
      "--branch-per-subgraph",
      "--mutants",
      "0",
      "--no-language-server",
    );
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain("4 passed, 0 failed, 0 skipped of 4 nodes");
    expect(result.out + result.err).toMatch(
      /^warning: the package up to subgraph left fails 1 of its 1 tests without the later subgraphs' code, so it is committed with the next subgraph$/m,
    );

    // No commit, tag or PR branch of left's own: right's commit, right after base's, holds both.
    const tags = git(out, "tag", "--list", "rpg/*").split("\n");
    expect(tags.map((t) => t.split("/").at(-1)).sort()).toEqual(["base", "right", "top"]);
    const tag = (subgraph: string): string => tags.find((t) => t.endsWith(`/${subgraph}`))!;
    expect(git(out, "log", "--reverse", "--format=%s", "HEAD^{/chore: start rpg-forge run}..HEAD").split("\n")).toEqual([
      "feat: complete Cleaning (nodes base.clean)",
      "feat: complete Whispering (nodes voice.quiet)",
      "feat: complete Both (nodes top.both)",
    ]);
    expect(git(out, "rev-parse", `${tag("right")}^`)).toBe(git(out, "rev-parse", `${tag("base")}^{commit}`));
    // The commit says what else it carries, and why.
    expect(git(out, "log", "-1", "--format=%b", tag("right"))).toBe(
      "Also holds Shouting (left): its tests fail without this subgraph's code, so it was not committed alone.",
    );
    expect(git(out, "for-each-ref", "--format=%(refname:short)", "refs/heads/rpg/dia/").split("\n")).toEqual([
      "rpg/dia/base",
      "rpg/dia/right",
      "rpg/dia/top",
    ]);
    const rollback = await runCli("rollback", out, "--to", "left");
    expect(rollback.code).not.toBe(0);
    expect(rollback.err).toContain('no completed subgraph "left"');

    for (const rev of [tag("right"), "rpg/dia/right"]) {
      const show = (path: string): string => git(out, "show", `${rev}:${path}`);
      const checkpoint = JSON.parse(show("docs/generation_checkpoint.json")) as Checkpoint;
      expect(Object.fromEntries(Object.entries(checkpoint.nodes).map(([id, e]) => [id, e.status]))).toEqual({
        "base.clean": "passed",
        "voice.quiet": "passed",
        "voice.shout": "passed",
        "top.both": "pending",
      });
      expect([...show("src/dia/voice.py").matchAll(/^def (\w+)/gm)].map((m) => m[1])).toEqual(["whisper", "shout"]);
      expect([...show("tests/test_voice.py").matchAll(/^# --- rpg-forge tests: (\S+) ---$/gm)].map((m) => m[1])).toEqual([
        "voice.quiet",
        "voice.shout",
      ]);
      expect(show("tests/test_voice.py")).toContain("from dia.voice import shout, whisper\n");
      expect(show("src/dia/__init__.py")).toContain('__all__ = ["clean", "shout", "whisper"]');
      expect(git(out, "ls-tree", "-r", "--name-only", rev)).not.toMatch(/top\.py$/m);
    }
    // What was committed passes on its own: base's snapshot and the one left rode along in.
    const base = packageSuiteIn(python, checkOut(out, tag("base")));
    expect(base.code, base.output).toBe(0);
    expect(base.passed).toEqual(["tests/test_base.py::test_clean"]);
    const right = packageSuiteIn(python, checkOut(out, tag("right")));
    expect(right.code, right.output).toBe(0);
    expect(right.passed).toEqual([
      "tests/test_base.py::test_clean",
      "tests/test_voice.py::test_shout",
      "tests/test_voice.py::test_whisper",
    ]);

    const final = packageSuiteIn(python, out);
    expect(final.code, final.output).toBe(0);
    expect(final.passed).toHaveLength(4);
    expect(git(out, "status", "--porcelain")).toBe("");
  });
});
