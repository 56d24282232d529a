import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitRepository, rollbackTo } from "../../src/workspace/git.js";
import { runCli } from "../helpers/cli.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const git = (dir: string, ...args: string[]): string => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
const options = { branch: "rpg-forge/pkg", ownPaths: new Set(["src/pkg/core.py"]), resuming: false, allowDirty: false };
const saved = { ...process.env };
afterEach(() => {
  for (const key of ["GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"]) process.env[key] = saved[key];
});

function write(dir: string, rel: string, content: string): void {
  mkdirSync(join(dir, rel, ".."), { recursive: true });
  writeFileSync(join(dir, rel), content);
}

describe("GitRepository", () => {
  it("initialises a new output on the run's branch and keeps run artifacts out of git", async () => {
    const dir = tempDir();
    const repo = await GitRepository.open(dir, options);
    expect(git(dir, "symbolic-ref", "--short", "HEAD")).toBe("rpg-forge/pkg");
    write(dir, ".rpg-forge/runs/r/n/01-tests-1/exchanges.json", "{}");
    write(dir, "src/pkg/core.py", "def f():\n    return 1\n");
    expect(git(dir, "status", "--porcelain", "-uall")).toBe("?? src/pkg/core.py");
    const files = new Map([["src/pkg/core.py", "def f():\n    return 1\n"]]);
    const sha = await repo.commitFiles(files, "feat: complete Core (nodes a-b)", "rpg/run-1/core");
    expect(git(dir, "log", "--format=%H %s").split("\n")).toEqual([
      `${sha} feat: complete Core (nodes a-b)`,
      expect.stringMatching(/ chore: start rpg-forge run$/),
    ]);
    expect(git(dir, "tag", "--points-at", "HEAD")).toBe("rpg/run-1/core");
    expect(git(dir, "status", "--porcelain", "-uall")).toBe("");
    expect(await repo.commitFiles(files, "nothing changed")).toBeUndefined();
  });

  it("commits the files as given, not as the work tree has them, and leaves the work tree alone", async () => {
    const dir = tempDir();
    const repo = await GitRepository.open(dir, options);
    write(dir, "src/pkg/core.py", "one = 1\ntwo = 2\n");
    await repo.commitFiles(
      new Map([
        ["src/pkg/core.py", "one = 1\n"],
        ["src/pkg/gone.py", "x = 0\n"],
      ]),
      "first",
    );
    await repo.commitFiles(new Map([["src/pkg/gone.py", null]]), "second");
    expect(git(dir, "show", "HEAD:src/pkg/core.py")).toBe("one = 1");
    expect(git(dir, "ls-tree", "-r", "--name-only", "HEAD")).toBe("src/pkg/core.py");
    expect(git(dir, "show", "--name-status", "--format=", "HEAD")).toBe("D\tsrc/pkg/gone.py");
    expect(readFileSync(join(dir, "src/pkg/core.py"), "utf8")).toBe("one = 1\ntwo = 2\n");
    // The index follows the branch: only the work tree's own change shows.
    expect(git(dir, "status", "--porcelain", "-uall")).toBe("M src/pkg/core.py"); // (trimmed: " M", changed in the work tree only)
  });

  it("branches off an existing history and names the run's commits in its log", async () => {
    const dir = tempDir();
    git(dir, "init", "-q", "-b", "main");
    write(dir, "README.md", "mine\n");
    git(dir, "add", ".");
    git(dir, "commit", "-qm", "initial");
    const repo = await GitRepository.open(dir, options);
    write(dir, "src/pkg/core.py", "x = 1\n");
    await repo.commitFiles(new Map([["src/pkg/core.py", "x = 1\n"]]), "feat: complete Core (nodes a-a)", "rpg/r/core");
    expect(git(dir, "branch", "--show-current")).toBe("rpg-forge/pkg");
    expect(await repo.log()).toEqual([
      expect.stringMatching(/^[0-9a-f]{7,} feat: complete Core \(nodes a-a\) \(HEAD -> rpg-forge\/pkg, tag: rpg\/r\/core\)$/),
    ]);
  });

  it("refuses uncommitted changes that are not rpg-forge's, before writing anything", async () => {
    const dir = tempDir();
    git(dir, "init", "-q", "-b", "main");
    write(dir, "notes.txt", "mine\n");
    await expect(GitRepository.open(dir, options)).rejects.toMatchObject({
      code: "GIT_DIRTY",
      message: expect.stringContaining("notes.txt"),
      hint: expect.stringContaining("--allow-dirty"),
    });
    await expect(GitRepository.open(dir, { ...options, allowDirty: true })).resolves.toBeDefined();
  });

  it("refuses a folder that is not a repository and holds someone else's files without running git init", async () => {
    const dir = tempDir();
    write(dir, "notes.txt", "mine\n");
    write(dir, "src/pkg/core.py", "x = 1\n");
    await expect(GitRepository.open(dir, { ...options, resuming: true })).rejects.toMatchObject({
      code: "GIT_DIRTY",
      message: expect.stringContaining("notes.txt"),
    });
    expect(existsSync(join(dir, ".git"))).toBe(false);
    await expect(GitRepository.open(dir, { ...options, allowDirty: true })).resolves.toBeDefined();
    expect(existsSync(join(dir, ".git"))).toBe(true);
  });

  it("lets a resume start with its own uncommitted work, but not with someone else's", async () => {
    const dir = tempDir();
    git(dir, "init", "-q", "-b", "main");
    write(dir, "src/pkg/core.py", "x = 1\n");
    await expect(GitRepository.open(dir, options)).rejects.toMatchObject({ code: "GIT_DIRTY" });
    await expect(GitRepository.open(dir, { ...options, resuming: true })).resolves.toBeDefined();
    write(dir, "src/pkg/other.py", "y = 2\n");
    await expect(GitRepository.open(dir, { ...options, resuming: true })).rejects.toMatchObject({
      code: "GIT_DIRTY",
      message: expect.stringContaining("src/pkg/other.py"),
    });
  });

  it("refuses a locked index and a git without an identity", async () => {
    const dir = tempDir();
    git(dir, "init", "-q", "-b", "main");
    writeFileSync(join(dir, ".git", "index.lock"), "");
    await expect(GitRepository.open(dir, options)).rejects.toMatchObject({ code: "GIT_LOCKED" });

    const other = tempDir();
    git(other, "init", "-q", "-b", "main");
    delete process.env.GIT_AUTHOR_EMAIL;
    delete process.env.GIT_COMMITTER_EMAIL;
    await expect(GitRepository.open(other, options)).rejects.toMatchObject({
      code: "GIT_IDENTITY_MISSING",
      hint: expect.stringContaining("user.email"),
    });
  });
});

describe("a repository rpg-forge creates", () => {
  it("signs its commits as rpg-forge when git has no identity, and says so", async () => {
    delete process.env.GIT_AUTHOR_EMAIL;
    delete process.env.GIT_COMMITTER_EMAIL;
    delete process.env.GIT_AUTHOR_NAME;
    delete process.env.GIT_COMMITTER_NAME;
    const dir = tempDir();
    const notices: string[] = [];
    await GitRepository.open(dir, { ...options, onNotice: (n) => notices.push(n) });
    expect(notices).toEqual(["git has no user.name or user.email; the new repository's commits are signed rpg-forge"]);
    expect(git(dir, "log", "-1", "--format=%an <%ae>")).toBe("rpg-forge <rpg-forge@users.noreply.localhost>");
  });
});

describe("rollback", () => {
  async function history(dir: string): Promise<void> {
    const repo = await GitRepository.open(dir, options);
    for (const [subgraph, content] of [
      ["io", "a = 1\n"],
      ["core", "b = 2\n"],
    ]) {
      write(dir, `src/pkg/${subgraph}.py`, content!);
      await repo.commitFiles(
        new Map([[`src/pkg/${subgraph}.py`, content!]]),
        `feat: complete ${subgraph} (nodes x-y)`,
        `rpg/run-1/${subgraph}`,
      );
    }
    write(dir, "pyproject.toml", "[project]\n");
    await repo.commitFiles(new Map([["pyproject.toml", "[project]\n"]]), "chore: record the run");
  }

  it("goes back to the last completed subgraph, stashing uncommitted work instead of losing it", async () => {
    const dir = tempDir();
    await history(dir);
    write(dir, "src/pkg/half.py", "unfinished = True\n");
    const result = await rollbackTo(dir);
    expect(result).toMatchObject({ tag: "rpg/run-1/core", undone: [expect.any(String)], stash: expect.stringContaining("stash@{0}") });
    expect(git(dir, "log", "-1", "--format=%s")).toBe("feat: complete core (nodes x-y)");
    expect(git(dir, "status", "--porcelain")).toBe("");
    git(dir, "stash", "pop", "-q");
    expect(readFileSync(join(dir, "src/pkg/half.py"), "utf8")).toBe("unfinished = True\n");
  });

  it("goes back to a named subgraph from the command line, and names a missing one", async () => {
    const dir = tempDir();
    await history(dir);
    const result = await runCli("rollback", dir, "--to", "io");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^Rolled back to rpg\/run-1\/io \([0-9a-f]{7}\); 2 later commits undone\.$/m);
    expect(git(dir, "log", "-1", "--format=%s")).toBe("feat: complete io (nodes x-y)");
    const missing = await runCli("rollback", dir, "--to", "nowhere");
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^ROLLBACK_NO_TAG: no completed subgraph "nowhere" on the current branch/m);
  });
});
