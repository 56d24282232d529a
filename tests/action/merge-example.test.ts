import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE, git } from "./fixtures.js";
import { generateAndMerge, installAndTest, type MergedGraph } from "./stack-merging.js";

// The shipped example, as a new user meets it: 14 nodes in 3 subgraphs, one node failing and two skipped.
const GRAPH = { dir: EXAMPLE, module: "statkit" };
const ORDER = ["rpg/statkit/validation", "rpg/statkit/stats", "rpg/statkit/report"];

let run: MergedGraph;

beforeAll(async () => {
  run = await generateAndMerge(GRAPH, "rpg-forge-merge-example-", ORDER, "rebase");
}, 300_000);

afterAll(() => {
  if (run?.root) rmSync(run.root, { recursive: true, force: true });
});

describe("merging the shipped example's PRs", () => {
  it("states the merge order in every PR body", () => {
    expect(run.opened.map((p) => p.body ?? "").map((b) => /\*\*Merge order:\*\* (\d) of 3/.exec(b)?.[1])).toEqual(["1", "2", "3"]);
  });

  it("has every PR branch install and pass its own suite, each a true snapshot", () => {
    expect(run.alone).toEqual([26, 60, 62]);
    const pending = (branch: string) =>
      Object.values(
        (JSON.parse(git(run.remote, "show", `${branch}:docs/generation_checkpoint.json`)) as { nodes: Record<string, { status: string }> })
          .nodes,
      ).filter((n) => n.status === "pending").length;
    expect(ORDER.map(pending)).toEqual([11, 4, 0]);
  });

  it.each(["merge", "squash", "rebase"] as const)(
    "merges by %s in order without a conflict, into the package with all its tests passing",
    (method) => {
      const { merged, main } = run.results.get(method)!;
      expect(merged.map((m) => m.head)).toEqual(ORDER);
      expect(merged[1]!.diff.filter((f) => f.endsWith(".py"))).toEqual([
        "src/statkit/__init__.py",
        "src/statkit/stats/__init__.py",
        "src/statkit/stats/descriptive.py",
        "src/statkit/stats/spread.py",
        "tests/integration/test_stats.py",
        "tests/test_descriptive.py",
        "tests/test_spread.py",
      ]);
      expect(installAndTest(run.venv, main, run.root, GRAPH.module)).toBe(62);
      expect(readFileSync(join(main, "README.md"), "utf8")).toContain("# Ours");
      expect(readFileSync(join(main, "docs/generation_report.md"), "utf8")).toContain("### `report.format_number`: `format_number`");
    },
  );
});
