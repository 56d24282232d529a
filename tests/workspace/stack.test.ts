import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushBranches } from "../../src/workspace/remote.js";
import { buildStack, isStackCommit, type StackLevel, type StackOptions } from "../../src/workspace/stack.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const git = (dir: string, ...args: string[]): string => execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: "pipe" }).trim();

// Fixed dates: the same inputs must give the same commits, and a rebuild must be comparable.
const DATES = { GIT_AUTHOR_DATE: "2025-01-02T03:04:05Z", GIT_COMMITTER_DATE: "2025-01-02T03:04:05Z" };
const saved = { ...process.env };
beforeAll(() => Object.assign(process.env, DATES));
afterAll(() => {
  for (const key of Object.keys(DATES)) process.env[key] = saved[key];
});

const owned = (path: string): boolean => path.startsWith("statkit/") || path.startsWith("tests/");
const [MEAN, SPREAD, REPORT] = ["rpg/statkit/mean", "rpg/statkit/spread", "rpg/statkit/report"] as const;
type Method = "merge" | "squash" | "rebase";

function write(dir: string, rel: string, content: string): void {
  mkdirSync(join(dir, rel, ".."), { recursive: true });
  writeFileSync(join(dir, rel), content);
}

function commitAll(dir: string, message: string): string {
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", message);
  return git(dir, "rev-parse", "HEAD");
}

/** A person's main, and the run's branch with one commit per subgraph, as the engine leaves them. */
function setup(): { dir: string; levels: StackLevel[]; options: (levels: readonly StackLevel[], base?: string) => StackOptions } {
  const dir = tempDir();
  git(dir, "init", "-q", "-b", "main");
  write(dir, "README.md", "# statkit\nmine\n");
  write(dir, ".github/workflows/ci.yml", "on: push\n");
  commitAll(dir, "initial");
  git(dir, "checkout", "-q", "-b", "rpg-forge/statkit");
  write(dir, "statkit/__init__.py", "from .mean import mean\n");
  write(dir, "statkit/mean.py", "def mean(xs):\n    return sum(xs) / len(xs)\n");
  write(dir, "tests/test_mean.py", "def test_mean():\n    pass\n");
  write(dir, "scratch.txt", "not owned: never in a pull request\n");
  const s1 = commitAll(dir, "subgraph mean");
  write(dir, "statkit/__init__.py", "from .mean import mean\nfrom .spread import spread\n");
  write(dir, "statkit/spread.py", "def spread(xs):\n    return max(xs) - min(xs)\n");
  write(dir, "statkit/_draft.py", "# removed again by the next subgraph\n");
  write(dir, "tests/test_spread.py", "def test_spread():\n    pass\n");
  const s2 = commitAll(dir, "subgraph spread");
  write(dir, "statkit/__init__.py", "from .mean import mean\nfrom .spread import spread\nfrom .report import report\n");
  write(dir, "statkit/report.py", "def report(xs):\n    return {}\n");
  write(dir, "tests/test_report.py", "def test_report():\n    pass\n");
  rmSync(join(dir, "statkit/_draft.py"));
  const s3 = commitAll(dir, "subgraph report");
  git(dir, "checkout", "-q", "main");
  const levels = [
    { branch: MEAN, source: s1, message: "feat: mean" },
    { branch: SPREAD, source: s2, message: "feat: spread" },
    { branch: REPORT, source: s3, message: "feat: report" },
  ];
  return { dir, levels, options: (levels, base = "main") => ({ dir, base, levels, owned }) };
}

/** path → "mode object" of every file at a commit. */
function filesOf(dir: string, ref: string): Record<string, string> {
  return Object.fromEntries(
    git(dir, "ls-tree", "-r", "--full-tree", ref)
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [meta = "", path = ""] = line.split("\t");
        const [mode, , object] = meta.split(" ");
        return [path, `${mode} ${object}`];
      }),
  );
}

const pick = (files: Record<string, string>, keep: (path: string) => boolean) =>
  Object.fromEntries(Object.entries(files).filter(([path]) => keep(path)));
const changes = (dir: string, from: string, to: string): string[] =>
  git(dir, "diff", "--name-status", from, to).split("\n").filter(Boolean);
const parentsOf = (dir: string, ref: string): string[] => git(dir, "rev-list", "--parents", "-n1", ref).split(" ").slice(1);

const OWN_DIFFS = {
  [MEAN]: ["A\tstatkit/__init__.py", "A\tstatkit/mean.py", "A\ttests/test_mean.py"],
  [SPREAD]: ["M\tstatkit/__init__.py", "A\tstatkit/_draft.py", "A\tstatkit/spread.py", "A\ttests/test_spread.py"],
  [REPORT]: ["M\tstatkit/__init__.py", "D\tstatkit/_draft.py", "A\tstatkit/report.py", "A\ttests/test_report.py"],
};

/** What the forge does when a PR is merged with each method, done to main in the work tree. */
function mergeInto(dir: string, branch: string, method: Method): void {
  if (method === "merge") git(dir, "merge", "-q", "--no-ff", "-m", `Merge ${branch}`, branch);
  if (method === "squash") {
    git(dir, "merge", "-q", "--squash", branch);
    git(dir, "commit", "-qm", `${branch} (squashed)`);
  }
  if (method === "rebase") git(dir, "cherry-pick", `main..${branch}`);
}

/** HEAD, the index and the work tree, as a person would see them. */
const untouched = (dir: string) => ({
  head: git(dir, "rev-parse", "HEAD"),
  symbolic: git(dir, "symbolic-ref", "HEAD"),
  status: git(dir, "status", "--porcelain", "-uall"),
  index: readFileSync(join(dir, ".git", "index")).toString("base64"),
});

describe("buildStack", () => {
  it("builds one commit per level whose tree is its parent's with only the level's owned files set", async () => {
    const { dir, levels, options } = setup();
    const before = untouched(dir);
    const built = await buildStack(options(levels));
    expect(built.held).toEqual([]);
    expect(built.levels.map((l) => [l.branch, l.change, l.previous, l.forced])).toEqual([
      [MEAN, "created", undefined, false],
      [SPREAD, "created", undefined, false],
      [REPORT, "created", undefined, false],
    ]);
    expect(built.levels.map((l) => git(dir, "rev-parse", l.branch))).toEqual(built.levels.map((l) => l.sha));
    expect(parentsOf(dir, MEAN)).toEqual([git(dir, "rev-parse", "main")]);
    expect(parentsOf(dir, SPREAD)).toEqual([built.levels[0]!.sha]);
    expect(parentsOf(dir, REPORT)).toEqual([built.levels[1]!.sha]);
    const personal = pick(filesOf(dir, "main"), (path) => !owned(path));
    for (const level of levels) expect(filesOf(dir, level.branch)).toEqual({ ...personal, ...pick(filesOf(dir, level.source), owned) });
    expect(changes(dir, "main", MEAN)).toEqual(OWN_DIFFS[MEAN]);
    expect(changes(dir, MEAN, SPREAD)).toEqual(OWN_DIFFS[SPREAD]);
    expect(changes(dir, SPREAD, REPORT)).toEqual(OWN_DIFFS[REPORT]);
    for (const level of levels) {
      const message = git(dir, "log", "-1", "--format=%B", level.branch);
      expect(message.startsWith(`${level.message}\n\n`)).toBe(true);
      expect(isStackCommit({ message, tree: git(dir, "rev-parse", `${level.branch}^{tree}`) }, level.branch)).toBe(true);
      expect(isStackCommit({ message, tree: git(dir, "rev-parse", `${level.branch}^{tree}`) }, "rpg/statkit/other")).toBe(false);
    }
    expect(untouched(dir)).toEqual(before);
  });

  it("changes nothing when run again with the same inputs", async () => {
    const { dir, levels, options } = setup();
    const first = await buildStack(options(levels));
    const refs = git(dir, "for-each-ref");
    const objects = git(dir, "count-objects", "-v");
    const second = await buildStack(options(levels));
    expect(second.levels).toEqual(first.levels.map((l) => ({ ...l, previous: l.sha, change: "unchanged" })));
    expect(git(dir, "for-each-ref")).toBe(refs);
    expect(git(dir, "count-objects", "-v")).toBe(objects);
  });

  it("makes the same commits from the same inputs and dates", async () => {
    const a = setup();
    const b = setup();
    const shas = async (s: ReturnType<typeof setup>) => (await buildStack(s.options(s.levels))).levels.map((l) => l.sha);
    expect(await shas(a)).toEqual(await shas(b));
  });

  const methods: Method[] = ["merge", "squash", "rebase"];
  it.each(methods.flatMap((first) => methods.map((later) => [first, later] as const)))(
    "restacks after level 1 is merged by %s, and levels 2 and 3 then merge by %s without conflicts",
    async (first, later) => {
      const { dir, levels, options } = setup();
      await buildStack(options(levels));
      // A person's own commit on main, on paths rpg-forge does not own, before the merge.
      write(dir, "CONTRIBUTING.md", "be kind\n");
      write(dir, "README.md", "# statkit\nmine, edited\n");
      commitAll(dir, "docs: contributing");
      const personal = pick(filesOf(dir, "main"), (path) => !owned(path));
      mergeInto(dir, MEAN, first);

      const fromBranches = (rest: readonly StackLevel[]) => rest.map((level) => ({ ...level, source: level.branch }));
      const restacked = await buildStack(options(fromBranches(levels.slice(1))));
      expect(restacked.levels.map((l) => [l.branch, l.change, l.forced])).toEqual([
        [SPREAD, "updated", true],
        [REPORT, "updated", true],
      ]);
      expect(parentsOf(dir, SPREAD)).toEqual([git(dir, "rev-parse", "main")]);
      expect(changes(dir, "main", SPREAD)).toEqual(OWN_DIFFS[SPREAD]);
      expect(changes(dir, SPREAD, REPORT)).toEqual(OWN_DIFFS[REPORT]);
      expect(filesOf(dir, REPORT)["CONTRIBUTING.md"]).toBeDefined();

      mergeInto(dir, SPREAD, later);
      await buildStack(options(fromBranches(levels.slice(2))));
      expect(changes(dir, "main", REPORT)).toEqual(OWN_DIFFS[REPORT]);
      mergeInto(dir, REPORT, later);

      const expected = { ...personal, ...pick(filesOf(dir, levels[2]!.source), owned) };
      expect(filesOf(dir, "main")).toEqual(expected);
      expect(Object.keys(expected).sort()).toEqual(
        [".github/workflows/ci.yml", "CONTRIBUTING.md", "README.md", ...Object.keys(pick(filesOf(dir, levels[2]!.source), owned))].sort(),
      );
      expect(git(dir, "show", "main:README.md")).toBe("# statkit\nmine, edited");
      expect(git(dir, "status", "--porcelain")).toBe("");
    },
  );

  it("holds a branch a person pushed to, and every level above it, while the levels below are rebuilt", async () => {
    const { dir, levels, options } = setup();
    const built = await buildStack(options(levels));
    git(dir, "checkout", "-q", SPREAD);
    write(dir, "statkit/spread.py", "def spread(xs):\n    return max(xs) - min(xs)  # checked by hand\n");
    const personal = commitAll(dir, "fix: spread of one value");
    git(dir, "checkout", "-q", "-b", "rpg-forge/statkit-2", levels[0]!.source);
    write(dir, "statkit/mean.py", "def mean(xs):\n    return sum(xs) / max(len(xs), 1)\n");
    const newMean = commitAll(dir, "subgraph mean, again");
    git(dir, "checkout", "-q", "main");

    const again = await buildStack(options([{ ...levels[0]!, source: newMean }, levels[1]!, levels[2]!]));
    expect(again.levels.map((l) => [l.branch, l.change, l.previous])).toEqual([[MEAN, "updated", built.levels[0]!.sha]]);
    expect(again.held).toEqual([
      { branch: SPREAD, head: personal, reason: "edited" },
      { branch: REPORT, head: built.levels[2]!.sha, reason: "below-edited" },
    ]);
    expect(git(dir, "rev-parse", SPREAD)).toBe(personal);
    expect(git(dir, "rev-parse", REPORT)).toBe(built.levels[2]!.sha);
  });

  it("holds a level whose commit a person amended, though its message still carries our trailers", async () => {
    const { dir, levels, options } = setup();
    const built = await buildStack(options(levels));
    git(dir, "checkout", "-q", REPORT);
    write(dir, "statkit/report.py", "def report(xs):\n    return {'n': len(xs)}\n");
    git(dir, "commit", "-q", "-a", "--amend", "--no-edit");
    const amended = git(dir, "rev-parse", "HEAD");
    git(dir, "checkout", "-q", "main");

    const again = await buildStack(options(levels));
    expect(again.levels.map((l) => l.change)).toEqual(["unchanged", "unchanged"]);
    expect(again.held).toEqual([{ branch: REPORT, head: amended, reason: "edited" }]);
    expect(amended).not.toBe(built.levels[2]!.sha);
  });

  it("refuses, naming the branch, a source that is no commit, a checked-out branch, and a clash with the base's files", async () => {
    const { dir, levels, options } = setup();
    await expect(buildStack(options([levels[0]!, { ...levels[1]!, source: "no-such-branch" }]))).rejects.toMatchObject({
      code: "GIT_FAILED",
      message: expect.stringContaining(SPREAD),
    });
    await buildStack(options(levels));
    git(dir, "commit", "-q", "--allow-empty", "-m", "main moves on");
    git(dir, "checkout", "-q", MEAN);
    const refs = git(dir, "for-each-ref");
    await expect(buildStack(options(levels))).rejects.toMatchObject({ code: "GIT_FAILED", message: expect.stringContaining(MEAN) });
    expect(git(dir, "for-each-ref")).toBe(refs);

    const clash = setup();
    write(clash.dir, "statkit", "a file of the person's where rpg-forge wants a folder\n");
    commitAll(clash.dir, "a file named statkit");
    await expect(buildStack(clash.options(clash.levels))).rejects.toMatchObject({
      code: "GIT_FAILED",
      message: expect.stringMatching(/rpg\/statkit\/mean .*statkit\/__init__\.py.*statkit$/),
    });
  });
});

describe("pushBranches", () => {
  it("creates the branches, refuses a stale lease without changing the remote, and force-updates under the right lease", async () => {
    const { dir, levels, options } = setup();
    const remote = tempDir();
    git(remote, "init", "-q", "--bare");
    git(dir, "remote", "add", "origin", remote);
    const built = await buildStack(options(levels));
    await pushBranches(
      dir,
      "origin",
      built.levels.map((l) => ({ branch: l.branch, sha: l.sha, expected: undefined })),
    );
    const remoteHeads = () => git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/");
    expect(remoteHeads()).toBe(
      [REPORT, SPREAD, MEAN]
        .sort()
        .map((b) => `refs/heads/${b} ${git(dir, "rev-parse", b)}`)
        .join("\n"),
    );

    // "Must not exist yet" fails once the branch exists (a push of the very commit it holds is up to date, and succeeds).
    await pushBranches(dir, "origin", [{ branch: MEAN, sha: built.levels[0]!.sha, expected: undefined }]);
    await expect(pushBranches(dir, "origin", [{ branch: MEAN, sha: built.levels[1]!.sha, expected: undefined }])).rejects.toMatchObject({
      code: "GIT_FAILED",
      message: expect.stringContaining(MEAN),
    });

    git(dir, "commit", "-q", "--allow-empty", "-m", "main moves on");
    const restacked = await buildStack(options(levels));
    expect(restacked.levels.every((l) => l.forced)).toBe(true);
    const pushed = remoteHeads();
    const stale = restacked.levels.map((l) => ({
      branch: l.branch,
      sha: l.sha,
      expected: l.branch === SPREAD ? built.levels[0]!.sha : l.previous,
    }));
    const refused = pushBranches(dir, "origin", stale);
    await expect(refused).rejects.toMatchObject({ code: "GIT_FAILED", message: expect.stringContaining(SPREAD) });
    await expect(refused).rejects.not.toMatchObject({ message: expect.stringContaining(MEAN) });
    expect(remoteHeads()).toBe(pushed);

    await pushBranches(
      dir,
      "origin",
      restacked.levels.map((l) => ({ branch: l.branch, sha: l.sha, expected: l.previous })),
    );
    expect(remoteHeads()).toBe(
      [REPORT, SPREAD, MEAN]
        .sort()
        .map((b) => `refs/heads/${b} ${git(dir, "rev-parse", b)}`)
        .join("\n"),
    );
  });
});
