import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN, git } from "./fixtures.js";
import { Octokit } from "@octokit/rest";
import {
  DIAMOND,
  actionRun,
  copyWithPulls,
  generateAndMerge,
  inMergeOrder,
  installAndTest,
  personPushes,
  type MergedGraph,
  type MergedRun,
} from "./stack-merging.js";

// Subgraphs in a diamond (base; left and right on it; top on both), left and right sharing src/dia/voice.py,
// and right's node generated before left's: the merges a DAG of PRs could not survive.
const ORDER = ["rpg/dia/base", "rpg/dia/left", "rpg/dia/right", "rpg/dia/top"];

let run: MergedGraph;

beforeAll(async () => {
  // Squash with GitHub deleting merged branches (it retargets the PRs stacked on them itself); the others without.
  run = await generateAndMerge(DIAMOND, "rpg-forge-diamond-", ORDER, "squash");
}, 300_000);

afterAll(() => {
  if (run?.root) rmSync(run.root, { recursive: true, force: true });
});

describe("the PRs of a diamond of subgraphs, two sharing a module", () => {
  it("are one stack in the plan's order, each on the one before", () => {
    expect(run.opened.map((p) => ({ head: p.head.ref, base: p.base.ref }))).toEqual([
      { head: ORDER[0], base: "main" },
      { head: ORDER[1], base: ORDER[0] },
      { head: ORDER[2], base: ORDER[1] },
      { head: ORDER[3], base: ORDER[2] },
    ]);
  });

  it("each hold exactly their subgraph's code: left's branch has shout, not whisper, though whisper was generated first", () => {
    const voice = (branch: string) => git(run.remote, "show", `${branch}:src/dia/voice.py`);
    expect(voice(ORDER[1]!)).toMatch(/def shout/);
    expect(voice(ORDER[1]!)).not.toMatch(/whisper/);
    expect(git(run.remote, "show", `${ORDER[1]}:tests/test_voice.py`)).not.toMatch(/whisper/);
    expect(voice(ORDER[2]!)).toMatch(/def whisper[\s\S]*def shout|def shout[\s\S]*def whisper/);
    expect(git(run.remote, "show", `${ORDER[0]}:src/dia/__init__.py`)).toContain('__all__ = ["clean"]');
  });

  it("are each a package that installs and passes its own tests", () => {
    expect(run.alone).toEqual([1, 2, 3, 4]);
  });

  it.each(["merge", "squash", "rebase"] as const)(
    "merge in the stated order by %s without a conflict, each diff only its own",
    (method) => {
      const { merged } = run.results.get(method)!;
      expect(merged.map((m) => m.head)).toEqual(ORDER);
      const own = (m: MergedRun["merged"][number]) => m.diff.filter((f) => f.startsWith("src/dia/") && !f.endsWith("__init__.py"));
      expect(merged.map(own)).toEqual([["src/dia/base.py"], ["src/dia/voice.py"], ["src/dia/voice.py"], ["src/dia/top.py"]]);
      for (const m of merged) expect(m.diff).not.toContain(".github/workflows/ci.yml");
    },
  );

  it.each(["merge", "squash", "rebase"] as const)("leave main, merged by %s, the whole package, installed and passing", (method) => {
    const { main } = run.results.get(method)!;
    expect(installAndTest(run.venv, main, run.root, DIAMOND.module)).toBe(4);
    expect(readFileSync(join(main, "README.md"), "utf8")).toContain("# Ours");
    const checkpoint = JSON.parse(readFileSync(join(main, "docs/generation_checkpoint.json"), "utf8")) as {
      nodes: Record<string, { status: string }>;
    };
    expect(Object.values(checkpoint.nodes).map((n) => n.status)).toEqual(["passed", "passed", "passed", "passed"]);
  });

  it("never force-pushes a branch a person pushed to, nor the ones above it, and says so on its PR", async () => {
    const { remote: copy, standIn } = await copyWithPulls(run.root, run.remote, "person");
    try {
      const theirs = personPushes(run.root, copy, ORDER[2]!, "src/dia/voice.py");
      const topBefore = git(copy, "rev-parse", ORDER[3]!);
      // The base PR is merged (squash): everything above it is restacked, except what a person touched.
      const gh = new Octokit({ auth: TOKEN, baseUrl: standIn.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
      const [first] = inMergeOrder(standIn.pulls);
      await gh.rest.pulls.merge({ owner: "octo", repo: "statkit", pull_number: first!.number, merge_method: "squash" });
      const restack = await actionRun(run.root, copy, standIn, { mode: "restack" });
      expect(restack.stdout).toContain(`::warning::${ORDER[2]} was left as it is: a person pushed to it`);
      expect(git(copy, "rev-parse", ORDER[2]!)).toBe(theirs);
      expect(git(copy, "rev-parse", ORDER[3]!)).toBe(topBefore);
      // left, below the person's branch, moved onto main.
      expect(git(copy, "rev-parse", `${ORDER[1]}^`)).toBe(git(copy, "rev-parse", "main"));
      const rightPr = standIn.pulls.find((p) => p.head.ref === ORDER[2])!;
      const said = standIn.comments.filter(
        (c) => c.issue_number === rightPr.number && c.body.includes("rpg-forge left this branch as it is"),
      );
      expect(said).toHaveLength(1);
      expect(said[0]!.body).toContain(`someone pushed to \`${ORDER[2]}\` (its head is \`${theirs.slice(0, 12)}\`)`);
      const topPr = standIn.pulls.find((p) => p.head.ref === ORDER[3])!;
      expect(standIn.comments.some((c) => c.issue_number === topPr.number && c.body.includes("a branch below it"))).toBe(true);
      // Said once: a second restack finds the comments as they are.
      const before = standIn.comments.length;
      await actionRun(run.root, copy, standIn, { mode: "restack" });
      expect(standIn.comments).toHaveLength(before);
    } finally {
      await standIn.close();
    }
  }, 120_000);

  it("restacks in the next generate run too, after a merge, generating nothing again", async () => {
    const { remote: copy, standIn } = await copyWithPulls(run.root, run.remote, "next-run");
    try {
      const gh = new Octokit({ auth: TOKEN, baseUrl: standIn.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
      const [first] = inMergeOrder(standIn.pulls);
      await gh.rest.pulls.merge({ owner: "octo", repo: "statkit", pull_number: first!.number, merge_method: "squash" });
      const next = await actionRun(run.root, copy, standIn, { mode: "generate", replay: join(DIAMOND.dir, "cassette.jsonl") });
      expect(next.stdout).toMatch(/Resuming run .*: 0 of 4 nodes to generate/);
      expect(inMergeOrder(standIn.pulls).map((p) => [p.head.ref, p.base.ref])).toEqual([
        [ORDER[1], "main"],
        [ORDER[2], ORDER[1]],
        [ORDER[3], ORDER[2]],
      ]);
      expect(git(copy, "rev-parse", `${ORDER[1]}^`)).toBe(git(copy, "rev-parse", "main"));
      expect(standIn.pulls.filter((p) => p.head.ref === ORDER[0])).toHaveLength(1);
    } finally {
      await standIn.close();
    }
  }, 120_000);
});
