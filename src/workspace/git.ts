import { existsSync } from "node:fs";
import { appendFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { RpgForgeError } from "../errors.js";
import { commitFiles } from "./git-commit.js";
import { gitIn, type Git } from "./git-runner.js";

/** What generated code and its runs leave that never belongs in a commit. */
const EXCLUDED = [".rpg-forge/", "__pycache__/", "*.py[cod]", ".pytest_cache/", "test_results.xml"];

export interface RepositoryOptions {
  /** The branch the run's commits go to; created from the current HEAD when missing. */
  branch: string;
  /** Paths rpg-forge writes; uncommitted changes to them are allowed when resuming. */
  ownPaths: ReadonlySet<string>;
  /** A resume or a fresh start: rpg-forge's own uncommitted files from the earlier run are expected. */
  resuming: boolean;
  /** Start even with uncommitted changes (they are never committed by rpg-forge). */
  allowDirty: boolean;
  onNotice?: (text: string) => void;
}

/**
 * The output as a git repository. Every check that could refuse happens in `open`,
 * before anything is written: git missing, no identity, a locked index, uncommitted
 * changes that are not ours.
 */
export class GitRepository {
  private constructor(
    readonly dir: string,
    private readonly git: Git,
    readonly branch: string,
    /** The commit the run branch started from. */
    readonly base: string,
  ) {}

  static async open(dir: string, options: RepositoryOptions): Promise<GitRepository> {
    const git = gitIn(dir);
    await run(() => git(["version"]), "GIT_UNAVAILABLE", "git does not run", "install git (apt-get install git)");
    const isRepo = existsSync(join(dir, ".git"));
    if (!isRepo) {
      // Refused before `git init`, so that a refusal leaves the folder as it was.
      const foreign = (await filesUnder(dir)).filter((path) => !(options.resuming && options.ownPaths.has(path)));
      if (foreign.length > 0 && !options.allowDirty) throw dirtyError(dir, foreign);
      await gitText(git, ["init", "--initial-branch", options.branch], "git init failed");
      // A repository we create is ours to sign: without an identity of the user's, its
      // commits are rpg-forge's (set in this repository only), so a first run on a
      // fresh machine works. A user's own repository never gets an identity from us.
      if (!(await hasIdentity(git))) {
        await gitText(git, ["config", "--local", "user.name", "rpg-forge"], "git config failed");
        await gitText(git, ["config", "--local", "user.email", "rpg-forge@users.noreply.localhost"], "git config failed");
        options.onNotice?.("git has no user.name or user.email; the new repository's commits are signed rpg-forge");
      }
    }
    await ensureIdentity(git, dir);
    if (existsSync(join(dir, ".git", "index.lock"))) {
      throw new RpgForgeError(
        "GIT_LOCKED",
        "another git process holds .git/index.lock",
        { file: join(dir, ".git", "index.lock") },
        "wait for it to finish, or remove the lock file if no git is running",
      );
    }
    await excludeRunFiles(dir);
    const dirty = (await changedPaths(git)).filter((path) => !(options.resuming && options.ownPaths.has(path)));
    if (dirty.length > 0 && !options.allowDirty) throw dirtyError(dir, dirty);
    const current = (await gitText(git, ["branch", "--show-current"], "git branch failed")).trim();
    if (!(await commitOf(git, "HEAD"))) {
      // A first, empty commit gives every branch of the run a common base to start from.
      await gitText(git, ["commit", "--allow-empty", "--no-verify", "-m", "chore: start rpg-forge run"], "the first commit failed");
    }
    const base = (await gitText(git, ["rev-parse", "HEAD"], "git rev-parse HEAD failed")).trim();
    if (current !== options.branch) {
      const args = (await commitOf(git, `refs/heads/${options.branch}`)) ? [options.branch] : ["-b", options.branch];
      await gitText(git, ["checkout", ...args], `cannot switch to the branch ${options.branch}`);
    }
    return new GitRepository(dir, git, options.branch, base);
  }

  /**
   * Commits these files, as given, on the run branch and tags the commit; null removes a
   * file. The work tree is not touched (it may hold later nodes' files), and the index is
   * then set to the new commit, so that `git status` shows the work tree against it.
   * Returns undefined when the tree would not change.
   */
  async commitFiles(files: ReadonlyMap<string, string | null>, message: string, tag?: string): Promise<string | undefined> {
    const sha = await commitFiles(this.dir, { parent: await this.head(), files, message, branch: this.branch, tag });
    if (sha !== undefined) await gitText(this.git, ["reset", "--quiet"], "git reset failed");
    return sha;
  }

  /** The commit HEAD is on. */
  async head(): Promise<string> {
    return headOf(this.dir);
  }

  /** Creates or moves a branch (not the one checked out) to a commit. */
  async pointBranch(branch: string, sha: string): Promise<void> {
    await gitText(this.git, ["branch", "--force", branch, sha], `cannot move the branch ${branch}`);
  }

  /** The run's commits, newest first, one line each: for the report. */
  async log(): Promise<string[]> {
    const out = await gitText(this.git, ["log", "--format=%h %s%d", "--decorate=short", `${this.base}..HEAD`], "git log failed").catch(
      () => "",
    );
    return out.trim() === "" ? [] : out.trim().split("\n");
  }
}

/** Local refs under a prefix (`refs/heads/rpg/statkit/`, `refs/tags/rpg/<run>/`), as short names. */
export async function refsUnder(dir: string, prefix: string): Promise<string[]> {
  return [...(await branchHeads(dir, prefix)).keys()];
}

/** The commit each local ref under a prefix points at, by short name. */
export async function branchHeads(dir: string, prefix: string): Promise<Map<string, string>> {
  const out = await gitText(gitIn(dir), ["for-each-ref", "--format=%(refname) %(objectname)", prefix], "git for-each-ref failed");
  return new Map(
    out
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [ref = "", sha = ""] = line.split(" ");
        return [ref.replace(/^refs\/(heads|tags)\//, ""), sha];
      }),
  );
}

/** Lays the files of `ref` that `wanted` names over the work tree (staged, not committed); the rest stays. */
export async function takeFiles(dir: string, ref: string, wanted: (path: string) => boolean): Promise<void> {
  const paths = (await filesAt(dir, ref)).filter(wanted);
  if (paths.length > 0) await gitText(gitIn(dir), ["checkout", ref, "--", ...paths], `cannot take the files of ${ref}`);
}

/** A file as it is on a branch or commit; undefined when it is not there. */
export async function readFileAt(dir: string, ref: string, path: string): Promise<string | undefined> {
  return gitIn(dir)(["show", `${ref}:${path}`]).then(
    (out) => out.toString("utf8"),
    () => undefined,
  );
}

/** The commit HEAD points at. */
export async function headOf(dir: string): Promise<string> {
  return (await gitText(gitIn(dir), ["rev-parse", "HEAD"], "git rev-parse HEAD failed")).trim();
}

/** The files a branch or commit holds. */
export async function filesAt(dir: string, ref: string): Promise<string[]> {
  // -z: paths as they are, not quoted when they hold a byte outside ASCII.
  const out = await gitText(gitIn(dir), ["ls-tree", "-r", "-z", "--name-only", ref], `cannot list ${ref}`);
  return out.split("\0").filter(Boolean);
}

/** Puts the work tree on `branch`, created or moved to `commit`; uncommitted changes go along where they can. */
export async function checkoutBranchAt(dir: string, branch: string, commit: string): Promise<void> {
  await gitText(gitIn(dir), ["checkout", "-B", branch, commit], `cannot put ${branch} at ${commit}`);
}

export interface RollbackResult {
  sha: string;
  tag: string;
  /** Commits after it that are no longer on the branch. */
  undone: string[];
  /** Where uncommitted work went, so that nothing is lost; undefined when there was none. */
  stash: string | undefined;
}

/**
 * Puts the branch back at the last completed subgraph (or the named one): the newest
 * commit on HEAD carrying an rpg/<run>/<subgraph> tag. Uncommitted work is stashed,
 * untracked files included, rather than thrown away.
 */
export async function rollbackTo(dir: string, subgraph?: string): Promise<RollbackResult> {
  if (!existsSync(join(dir, ".git")))
    throw new RpgForgeError(
      "ROLLBACK_NO_TAG",
      `${dir} is not a git repository`,
      { file: dir },
      "rollback works on an output generated with git (the default)",
    );
  const git = gitIn(dir);
  const log = await gitText(git, ["log", "--format=%H%x09%D", "HEAD"], "git log failed");
  const commits = log
    .trim()
    .split("\n")
    .map((line) => {
      const [sha = "", refs = ""] = line.split("\t");
      const tags = refs
        .split(", ")
        .filter((r) => r.startsWith("tag: rpg/"))
        .map((r) => r.slice("tag: ".length));
      return { sha, tags };
    });
  const index = commits.findIndex((c) => c.tags.some((t) => subgraph === undefined || t.endsWith(`/${subgraph}`)));
  if (index < 0) {
    const what = subgraph === undefined ? "no completed subgraph" : `no completed subgraph "${subgraph}"`;
    throw new RpgForgeError(
      "ROLLBACK_NO_TAG",
      `${what} on the current branch`,
      { file: dir },
      "rpg-forge tags each completed subgraph rpg/<run-id>/<subgraph>; see git tag --list 'rpg/*'",
    );
  }
  const target = commits[index]!;
  const tag = target.tags.find((t) => subgraph === undefined || t.endsWith(`/${subgraph}`))!;
  let stash: string | undefined;
  if ((await changedPaths(git)).length > 0) {
    const message = `rpg-forge rollback to ${tag}`;
    await gitText(git, ["stash", "push", "--include-untracked", "-m", message], "git stash failed");
    stash = `stash@{0} (${message})`;
  }
  await gitText(git, ["reset", "--hard", target.sha], "git reset failed");
  return { sha: target.sha, tag, undone: commits.slice(0, index).map((c) => c.sha), stash };
}

// useConfigOnly: git must not guess root@hostname; a commit made as that is worse than none.
const identity = (git: Git): Promise<Buffer> => git(["-c", "user.useConfigOnly=true", "var", "GIT_COMMITTER_IDENT"]);

async function hasIdentity(git: Git): Promise<boolean> {
  return identity(git).then(
    () => true,
    () => false,
  );
}

async function ensureIdentity(git: Git, dir: string): Promise<void> {
  try {
    await identity(git);
  } catch (error) {
    throw new RpgForgeError(
      "GIT_IDENTITY_MISSING",
      "git does not know who commits (no user.name or user.email)",
      { file: dir },
      'run git config --global user.name "Your Name" and git config --global user.email you@example.com',
      { cause: error },
    );
  }
}

/** Keeps run artifacts out of `git status` without touching the user's .gitignore. */
async function excludeRunFiles(dir: string): Promise<void> {
  const path = join(dir, ".git", "info", "exclude");
  const current = await readFile(path, "utf8").catch(() => "");
  const missing = EXCLUDED.filter((e) => !current.split("\n").includes(e));
  if (missing.length === 0) return;
  await mkdir(join(dir, ".git", "info"), { recursive: true });
  await appendFile(path, `${current === "" || current.endsWith("\n") ? "" : "\n"}# rpg-forge\n${missing.join("\n")}\n`);
}

/**
 * The paths `git status` shows: changed, staged or untracked (each file of an untracked
 * folder), a rename by its new name. Ignored files are not among them.
 */
async function changedPaths(git: Git): Promise<string[]> {
  const out = await gitText(git, ["status", "--porcelain", "-z", "--untracked-files=all"], "git status failed");
  const fields = out.split("\0");
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.length < 4) continue;
    paths.push(field.slice(3));
    // "XY new\0old\0" for a rename or copy: the old name is not a path of the work tree.
    if (field[0] === "R" || field[0] === "C") i++;
  }
  return paths;
}

/** The commit a name resolves to; "" when it resolves to none (an unborn HEAD, a missing branch). */
async function commitOf(git: Git, name: string): Promise<string> {
  return git(["rev-parse", "--verify", "--quiet", `${name}^{commit}`]).then(
    (out) => out.toString("utf8").trim(),
    () => "",
  );
}

/** git's output as text; a failure becomes GIT_FAILED saying what could not be done, in git's words. */
async function gitText(git: Git, args: readonly string[], what: string): Promise<string> {
  return run(async () => (await git(args)).toString("utf8"), "GIT_FAILED", what);
}

async function run<T>(task: () => Promise<T>, code: "GIT_UNAVAILABLE" | "GIT_FAILED", what: string, hint?: string): Promise<T> {
  try {
    return await task();
  } catch (error) {
    const said = (error as Error).message.trim().split("\n").filter(Boolean).at(-1) ?? "";
    throw new RpgForgeError(code, `${what}: ${said}`, {}, hint, { cause: error });
  }
}

function dirtyError(dir: string, paths: readonly string[]): RpgForgeError {
  const list = paths.slice(0, 8).join(", ") + (paths.length > 8 ? `, and ${paths.length - 8} more` : "");
  return new RpgForgeError(
    "GIT_DIRTY",
    `the output has uncommitted changes: ${list}`,
    { file: dir },
    "commit or stash them, or pass --allow-dirty (rpg-forge commits only the files it writes)",
  );
}

/** Every file below `dir` (POSIX paths relative to it), leaving out rpg-forge's own .rpg-forge/. */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (rel === ".rpg-forge") continue;
    if (entry.isDirectory()) found.push(...(await filesUnder(dir, rel)));
    else found.push(rel);
  }
  return found;
}
