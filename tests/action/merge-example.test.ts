import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn } from "../helpers/github-stand-in.js";
import { createVenv, type Venv } from "../helpers/python-venv.js";
import { EXAMPLE, git } from "./fixtures.js";
import {
  actionRun,
  eachBranchAlone,
  inMergeOrder,
  installAndTest,
  mergeAll,
  seedRemoteWith,
  type MergeMethod,
  type MergedRun,
} from "./stack-merging.js";

// The shipped example, as a new user meets it: 14 nodes in 3 subgraphs, one node failing and two skipped.
const GRAPH = { dir: EXAMPLE, module: "statkit" };
const ORDER = ["rpg/statkit/validation", "rpg/statkit/stats", "rpg/statkit/report"];

let root: string;
let remote: string;
let venv: Venv;
let alone: number[];
let bodies: string[];
const results = new Map<MergeMethod, MergedRun>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "rpg-forge-merge-example-"));
  remote = seedRemoteWith(root, GRAPH);
  venv = createVenv(join(root, "venv"));
  const standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit", remote });
  try {
    await actionRun(root, remote, standIn, { mode: "generate", replay: join(GRAPH.dir, "cassette.jsonl"), concurrency: "3" });
    bodies = inMergeOrder(standIn.pulls).map((p) => p.body ?? "");
  } finally {
    await standIn.close();
  }
  alone = eachBranchAlone(root, remote, ORDER, GRAPH.module, venv);
  for (const method of ["merge", "squash", "rebase"] as const)
    results.set(method, await mergeAll(root, remote, method, method === "rebase"));
}, 300_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("merging the shipped example's PRs", () => {
  it("states the merge order in every PR body", () => {
    expect(bodies.map((b) => /\*\*Merge order:\*\* (\d) of 3/.exec(b)?.[1])).toEqual(["1", "2", "3"]);
  });

  it("has every PR branch install and pass its own suite, each a true snapshot", () => {
    expect(alone).toEqual([22, 52, 54]);
    const pending = (branch: string) =>
      Object.values(
        (JSON.parse(git(remote, "show", `${branch}:docs/generation_checkpoint.json`)) as { nodes: Record<string, { status: string }> })
          .nodes,
      ).filter((n) => n.status === "pending").length;
    expect(ORDER.map(pending)).toEqual([11, 4, 0]);
  });

  it.each(["merge", "squash", "rebase"] as const)(
    "merges by %s in order without a conflict, into the package with all its tests passing",
    (method) => {
      const { merged, main } = results.get(method)!;
      expect(merged.map((m) => m.head)).toEqual(ORDER);
      expect(merged[1]!.diff.filter((f) => f.endsWith(".py"))).toEqual([
        "src/statkit/__init__.py",
        "src/statkit/stats/__init__.py",
        "src/statkit/stats/descriptive.py",
        "src/statkit/stats/spread.py",
        "tests/test_descriptive.py",
        "tests/test_spread.py",
      ]);
      expect(installAndTest(venv, main, root, GRAPH.module)).toBe(54);
      expect(readFileSync(join(main, "README.md"), "utf8")).toContain("# Ours");
      expect(readFileSync(join(main, "docs/generation_report.md"), "utf8")).toContain("### `report.format_number`: `format_number`");
    },
  );
});
