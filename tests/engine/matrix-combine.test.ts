import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { combineNeededBranches, layWorkBranchesOver } from "../../src/engine/matrix.js";
import { buildPlan } from "../../src/plan/plan.js";
import { RpgSchema } from "../../src/rpg/schema.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const leaf = (id: string, subgraph: string, file: string, deps: string[] = []) => ({
  id,
  name: id,
  type: "function",
  node_type: "leaf",
  file_path: file,
  docstring: "d",
  dependencies: deps,
  subgraph_id: subgraph,
});

/**
 * Work branches as three wave jobs leave them: A and D share m.py (D built on A's copy); E,
 * later in the plan, built on A alone and carries A's old m.py. The checkout is on main.
 */
function workBranches(): { dir: string; git: (...args: string[]) => string } {
  const dir = tempDir();
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  const put = (path: string, text: string) => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  git("init", "-q", "-b", "main");
  git("commit", "-q", "--allow-empty", "-m", "base");
  git("checkout", "-q", "-b", "rpg-work/x/A");
  put("src/pkg/m.py", "def a1():\n    return 1\n");
  git("add", "-A");
  git("commit", "-q", "-m", "A");
  git("checkout", "-q", "-b", "rpg-work/x/D");
  put("src/pkg/m.py", "def a1():\n    return 1\n\n\ndef d1():\n    return 2\n");
  git("add", "-A");
  git("commit", "-q", "-m", "D");
  git("checkout", "-q", "rpg-work/x/A");
  git("checkout", "-q", "-b", "rpg-work/x/E");
  put("src/pkg/e.py", "from pkg.m import a1\n\n\ndef e1():\n    return a1()\n");
  git("add", "-A");
  git("commit", "-q", "-m", "E");
  git("checkout", "-q", "main");
  return { dir, git };
}

describe("matrix mode's report job, putting the waves' work together", () => {
  it("takes a shared module from the subgraph that wrote it last, not from a later branch that only carries an older copy", async () => {
    const rpg = RpgSchema.parse({
      nodes: [leaf("a1", "A", "src/pkg/m.py"), leaf("d1", "D", "src/pkg/m.py"), leaf("e1", "E", "src/pkg/e.py", ["a1"])],
      edges: [],
      metadata: {},
    });
    const { dir } = workBranches();

    expect(await layWorkBranchesOver(dir, rpg, buildPlan(rpg), "x")).toEqual(["A", "D", "E"]);
    expect(readFileSync(join(dir, "src/pkg/m.py"), "utf8")).toContain("def d1():");
    expect(readFileSync(join(dir, "src/pkg/e.py"), "utf8")).toContain("def e1():");
  });
});

describe("matrix mode's wave job, starting on the work of the subgraphs it needs", () => {
  it("commits on the first needed branch the others' files, with every branch it took files from as a parent, and checks it out", async () => {
    const rpg = RpgSchema.parse({
      nodes: [
        leaf("a1", "A", "src/pkg/m.py"),
        leaf("d1", "D", "src/pkg/m.py"),
        leaf("e1", "E", "src/pkg/e.py", ["a1"]),
        leaf("f1", "F", "src/pkg/f.py", ["d1", "e1"]),
      ],
      edges: [],
      metadata: {},
    });
    const { dir, git } = workBranches();

    const result = await combineNeededBranches(dir, rpg, buildPlan(rpg), "x", "rpg-forge/x", ["F"]);
    expect(result).toEqual({ combined: ["D", "E"], missing: [] });
    expect(git("branch", "--show-current").trim()).toBe("rpg-forge/x");
    const parents = git("rev-list", "--parents", "-n", "1", "HEAD").trim().split(" ").slice(1);
    expect(parents).toEqual([git("rev-parse", "rpg-work/x/D").trim(), git("rev-parse", "rpg-work/x/E").trim()]);
    expect(git("status", "--porcelain", "-uall")).toBe("");
    // m.py from D, which wrote it last; e.py from E.
    expect(readFileSync(join(dir, "src/pkg/m.py"), "utf8")).toContain("def d1():");
    expect(readFileSync(join(dir, "src/pkg/e.py"), "utf8")).toContain("def e1():");
  });
});
