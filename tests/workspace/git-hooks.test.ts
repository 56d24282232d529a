import { buildStack } from "../../src/workspace/stack.js";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitFiles } from "../../src/workspace/git-commit.js";
import { checkoutBranchAt, GitRepository, takeFiles } from "../../src/workspace/git.js";
import { fetchRefs, pushRefs } from "../../src/workspace/remote.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

/**
 * Generated code run without bwrap can write into the output's .git/: hooks, and a
 * core.fsmonitor command that git runs on every status. rpg-forge's own git calls run
 * with OPENAI_API_KEY and GITHUB_TOKEN in their environment, so they must run neither.
 */
const HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "post-checkout",
  "post-merge",
  "pre-push",
  "reference-transaction",
  "post-index-change",
];

const git = (cwd: string, ...args: string[]) => {
  const result = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
};

/** A repository with one commit, then armed: every hook and the fsmonitor append their name to `marker`. */
function armedRepository(): { dir: string; remote: string; marker: string } {
  const root = tempDir();
  const dir = join(root, "out");
  const remote = join(root, "remote.git");
  const marker = join(root, "marker");
  mkdirSync(dir);
  git(root, "init", "--bare", "--initial-branch=main", remote);
  git(dir, "init", "--initial-branch=main");
  writeFileSync(join(dir, "README.md"), "hello\n");
  git(dir, "add", "README.md");
  git(dir, "commit", "-m", "start");
  git(dir, "remote", "add", "origin", remote);
  const script = (name: string): string => `#!/bin/sh\necho ${name} >> '${marker}'\nexit 0\n`;
  for (const hook of HOOKS) {
    writeFileSync(join(dir, ".git/hooks", hook), script(hook));
    chmodSync(join(dir, ".git/hooks", hook), 0o755);
  }
  const monitor = join(root, "fsmonitor.sh");
  writeFileSync(monitor, script("fsmonitor"));
  chmodSync(monitor, 0o755);
  git(dir, "config", "core.fsmonitor", monitor);
  return { dir, remote, marker };
}

describe("git never runs the output repository's hooks or fsmonitor", () => {
  it("through open, commit, tag, a subgraph branch, a commit merging a branch's files, checkout, push and fetch", async () => {
    const { dir, remote, marker } = armedRepository();
    const repo = await GitRepository.open(dir, {
      branch: "rpg-forge/mini",
      ownPaths: new Set(["src/a.py"]),
      resuming: false,
      allowDirty: false,
    });
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src/a.py"), "A = 1\n");
    const sha = await repo.commitFiles(new Map([["src/a.py", "A = 1\n"]]), "feat: complete a", "rpg/run-1/a");
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    writeFileSync(join(dir, "src/b.py"), "B = 1\n");
    const stack = await buildStack({
      dir,
      base: repo.base,
      levels: [{ branch: "rpg/mini/b", source: sha!, message: "feat: complete b" }],
      owned: () => true,
    });
    expect(stack.levels[0]!.sha).toMatch(/^[0-9a-f]{40}$/);
    await repo.commitFiles(new Map([["src/b.py", "B = 1\n"]]), "chore: b");
    // As matrix mode makes them: a commit on one branch taking files of another, checked out; and files taken from a branch.
    const combined = await commitFiles(dir, {
      parent: "rpg/mini/b",
      merging: [{ ref: "rpg-forge/mini", paths: ["src/b.py"] }],
      files: new Map([["src/c.py", "C = 1\n"]]),
      message: "chore: the code of b",
      tag: "rpg/run-1/c",
    });
    expect(git(dir, "rev-list", "--parents", "-n", "1", combined!).split(" ")).toHaveLength(3);
    await checkoutBranchAt(dir, "rpg/mini/c", combined!);
    await checkoutBranchAt(dir, "rpg-forge/mini", "rpg-forge/mini");
    await takeFiles(dir, "rpg/mini/b", (path) => path === "src/a.py");
    await pushRefs(dir, "origin", ["refs/heads/rpg-forge/mini:refs/heads/rpg-forge/mini", "refs/tags/rpg/run-1/a:refs/tags/rpg/run-1/a"]);
    await fetchRefs(dir, "origin", ["+refs/heads/rpg-forge/*:refs/remotes/origin/rpg-forge/*"]);

    expect(git(remote, "rev-parse", "refs/heads/rpg-forge/mini")).toBe(git(dir, "rev-parse", "HEAD"));
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");

    // The trap was armed: git on its own runs them.
    git(dir, "status");
    git(dir, "commit", "--allow-empty", "-m", "by hand");
    expect(readFileSync(marker, "utf8")).toMatch(/fsmonitor[\s\S]*pre-commit[\s\S]*post-commit/);
  });
});
