import { existsSync } from "node:fs";
import { appendFile, copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import { RpgForgeError } from "../errors.js";

/**
 * The GIT_* variables a run honours. simple-git strips every ambient GIT_* variable
 * unless named (some can make git run commands); these only say who commits, when,
 * and which config files apply, which CI and the Action rely on.
 */
const ALLOWED_ENVIRONMENT = [
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_NOSYSTEM",
];

/**
 * Settings every git call rpg-forge makes carries: the output repository is not
 * trusted. Generated code run without bwrap can write `.git/hooks/*` or a
 * `core.fsmonitor` command into it, and git would run those with our environment
 * (OPENAI_API_KEY, GITHUB_TOKEN) on our commits, checkouts and status calls. A hooks
 * path of /dev/null holds no hook, and the command-line setting wins over the
 * repository's config.
 */
export const UNTRUSTED_REPOSITORY_CONFIG = ["core.hooksPath=/dev/null", "core.fsmonitor=false"] as const;

const gitIn = (dir: string): SimpleGit =>
  simpleGit({
    baseDir: dir,
    allowEnvironment: ALLOWED_ENVIRONMENT,
    config: [...UNTRUSTED_REPOSITORY_CONFIG],
    // simple-git refuses any -c core.hooksPath / core.fsmonitor; ours only turn them off.
    unsafe: { allowUnsafeHooksPath: true, allowUnsafeFsMonitor: true },
  });

/** What generated code and its runs leave that never belongs in a commit. */
const EXCLUDED = [".rpg-forge/", "__pycache__/", "*.py[cod]", ".pytest_cache/"];

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
 * The output as a git repository (simple-git underneath). Every check that could
 * refuse happens in `open`, before anything is written: git missing, no identity, a
 * locked index, uncommitted changes that are not ours.
 */
export class GitRepository {
  private constructor(
    readonly dir: string,
    private readonly git: SimpleGit,
    readonly branch: string,
    /** The commit the run branch started from. */
    readonly base: string,
  ) {}

  static async open(dir: string, options: RepositoryOptions): Promise<GitRepository> {
    const git = gitIn(dir);
    await run(() => git.version(), "GIT_UNAVAILABLE", "git does not run", "install git (apt-get install git)");
    const isRepo = existsSync(join(dir, ".git"));
    if (!isRepo) {
      // Refused before `git init`, so that a refusal leaves the folder as it was.
      const foreign = (await filesUnder(dir)).filter((path) => !(options.resuming && options.ownPaths.has(path)));
      if (foreign.length > 0 && !options.allowDirty) throw dirtyError(dir, foreign);
      await run(() => git.init(["--initial-branch", options.branch]), "GIT_FAILED", "git init failed");
      // A repository we create is ours to sign: without an identity of the user's, its
      // commits are rpg-forge's (set in this repository only), so a first run on a
      // fresh machine works. A user's own repository never gets an identity from us.
      if (!(await hasIdentity(git))) {
        await git.addConfig("user.name", "rpg-forge");
        await git.addConfig("user.email", "rpg-forge@users.noreply.localhost");
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
    const status = await run(() => git.status(), "GIT_FAILED", "git status failed");
    const dirty = status.files.map((f) => f.path).filter((path) => !(options.resuming && options.ownPaths.has(path)));
    if (dirty.length > 0 && !options.allowDirty) throw dirtyError(dir, dirty);
    let head = (await git.revparse(["--verify", "--quiet", "HEAD"]).catch(() => "")).trim();
    if (!head) {
      // A first, empty commit gives every branch of the run a common base to start from.
      await run(
        () => git.commit("chore: start rpg-forge run", [], { "--allow-empty": null, "--no-verify": null }),
        "GIT_FAILED",
        "the first commit failed",
      );
      head = (await git.revparse(["HEAD"])).trim();
    }
    const base = head;
    if (base && status.current !== options.branch) {
      const branches = await git.branchLocal();
      const args = branches.all.includes(options.branch) ? [options.branch] : ["-b", options.branch];
      await run(() => git.checkout(args), "GIT_FAILED", `cannot switch to the branch ${options.branch}`);
    }
    return new GitRepository(dir, git, options.branch, base);
  }

  /** Commits exactly these paths (as they are now) and tags the commit; returns its sha. A tag already on this commit counts as done. */
  async commitPaths(paths: readonly string[], message: string, tag?: string): Promise<string | undefined> {
    const present = paths.filter((p) => existsSync(join(this.dir, p)));
    if (present.length === 0) return undefined;
    await run(() => this.git.add(["--", ...present]), "GIT_FAILED", "git add failed");
    const staged = await this.git.diff(["--cached", "--name-only"]);
    if (staged.trim() === "") return undefined;
    await run(() => this.git.commit(message, [], { "--no-verify": null }), "GIT_FAILED", "git commit failed");
    const sha = (await this.git.revparse(["HEAD"])).trim();
    if (tag) await run(() => this.git.raw(["tag", "--force", tag, sha]), "GIT_FAILED", `git tag ${tag} failed`);
    return sha;
  }

  /** The commit a branch points at, if the branch exists. */
  async branchHead(branch: string): Promise<string | undefined> {
    const sha = await this.git.revparse(["--verify", "--quiet", `refs/heads/${branch}`]).catch(() => "");
    return sha.trim() || undefined;
  }

  /**
   * Commits `paths`, as they are in the work tree, onto `branch` without touching the
   * work tree: in a temporary worktree on the first parent, with the other parents
   * merged in by strategy "ours" (their files come from `paths`, which include them),
   * so no merge can conflict. The branch is created or moved to the new commit.
   * Parents another parent already contains are dropped, and nothing is committed
   * when nothing would change: a rerun with the same code leaves the branch as it is.
   * Returns the new commit, or undefined when there was nothing to commit.
   */
  async commitToBranch(branch: string, parents: readonly string[], paths: readonly string[], message: string): Promise<string | undefined> {
    const [first, ...others] = await this.independent(parents);
    if (!first) throw new RpgForgeError("GIT_FAILED", `no parent commit for the branch ${branch}`);
    const scratch = await mkdtemp(join(tmpdir(), "rpg-forge-branch-"));
    const worktree = join(scratch, "tree");
    try {
      await run(() => this.git.raw(["worktree", "add", "--detach", worktree, first]), "GIT_FAILED", `cannot prepare the branch ${branch}`);
      const tree = gitIn(worktree);
      if (others.length > 0)
        await run(
          () => tree.raw(["merge", "-s", "ours", "--no-ff", "--no-commit", ...others]),
          "GIT_FAILED",
          `cannot merge the bases of ${branch}`,
        );
      const present = paths.filter((p) => existsSync(join(this.dir, p)));
      for (const path of present) {
        await mkdir(dirname(join(worktree, path)), { recursive: true });
        await copyFile(join(this.dir, path), join(worktree, path));
      }
      if (present.length > 0) await run(() => tree.add(["--", ...present]), "GIT_FAILED", `git add failed on ${branch}`);
      const changed = (await tree.diff(["--cached", "--name-only", first])).trim() !== "";
      if (others.length === 0 && !changed) return undefined;
      await run(() => tree.commit(message, [], { "--allow-empty": null, "--no-verify": null }), "GIT_FAILED", `cannot commit to ${branch}`);
      const sha = (await tree.revparse(["HEAD"])).trim();
      await run(() => this.git.raw(["branch", "--force", branch, sha]), "GIT_FAILED", `cannot move the branch ${branch}`);
      return sha;
    } finally {
      await this.git.raw(["worktree", "remove", "--force", worktree]).catch(() => undefined);
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** The parents none of the others contains, in the order given. */
  private async independent(parents: readonly string[]): Promise<string[]> {
    if (parents.length < 2) return [...parents];
    const out = await run(() => this.git.raw(["merge-base", "--independent", ...parents]), "GIT_FAILED", "git merge-base failed");
    const keep = new Set(
      out
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean),
    );
    return parents.filter((p) => keep.has(p));
  }

  /** The run's commits, newest first, one line each: for the report. */
  async log(): Promise<string[]> {
    const out = await this.git.raw(["log", "--format=%h %s%d", "--decorate=short", `${this.base}..HEAD`]).catch(() => "");
    return out.trim() === "" ? [] : out.trim().split("\n");
  }
}

/** Local refs under a prefix (`refs/heads/rpg/statkit/`, `refs/tags/rpg/<run>/`), as short names. */
export async function refsUnder(dir: string, prefix: string): Promise<string[]> {
  const out = await run(() => gitIn(dir).raw(["for-each-ref", "--format=%(refname)", prefix]), "GIT_FAILED", "git for-each-ref failed");
  return out
    .split("\n")
    .filter(Boolean)
    .map((ref) => ref.replace(/^refs\/(heads|tags)\//, ""));
}

/** Switches the work tree to a branch (a retry continues where the run branch left off). */
export async function checkoutBranch(dir: string, branch: string): Promise<void> {
  await run(() => gitIn(dir).checkout([branch]), "GIT_FAILED", `cannot switch to the branch ${branch}`);
}

/** A file as it is on a branch or commit; undefined when it is not there. */
export async function readFileAt(dir: string, ref: string, path: string): Promise<string | undefined> {
  return gitIn(dir)
    .show([`${ref}:${path}`])
    .catch(() => undefined);
}

/** The commit HEAD points at. */
export async function headOf(dir: string): Promise<string> {
  return (await run(() => gitIn(dir).revparse(["HEAD"]), "GIT_FAILED", "git rev-parse HEAD failed")).trim();
}

/** The files a branch or commit holds. */
export async function filesAt(dir: string, ref: string): Promise<string[]> {
  const out = await run(() => gitIn(dir).raw(["ls-tree", "-r", "--name-only", ref]), "GIT_FAILED", `cannot list ${ref}`);
  return out.split("\n").filter(Boolean);
}

/**
 * Puts the work tree on `branch`, made from `first`, with the named files of other
 * refs laid over it (matrix mode: the code of every subgraph branch a subgraph
 * needs). The caller commits the result.
 */
export async function checkoutWithFiles(
  dir: string,
  branch: string,
  first: string,
  overlays: readonly { ref: string; paths: readonly string[] }[],
): Promise<void> {
  const git = gitIn(dir);
  await run(() => git.checkout(["-B", branch, first]), "GIT_FAILED", `cannot start ${branch} from ${first}`);
  for (const { ref, paths } of overlays) {
    if (paths.length > 0) await run(() => git.checkout([ref, "--", ...paths]), "GIT_FAILED", `cannot take the files of ${ref}`);
  }
}

/** Commits these paths as they are (the index is otherwise as it was). */
export async function commitFiles(dir: string, paths: readonly string[], message: string): Promise<void> {
  const git = gitIn(dir);
  await run(() => git.add(["--", ...paths]), "GIT_FAILED", "git add failed");
  if ((await git.diff(["--cached", "--name-only"])).trim() === "") return;
  await run(() => git.commit(message, [], { "--no-verify": null }), "GIT_FAILED", "git commit failed");
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
  const log = await run(() => git.raw(["log", "--format=%H%x09%D", "HEAD"]), "GIT_FAILED", "git log failed");
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
  const status = await git.status();
  if (!status.isClean()) {
    const message = `rpg-forge rollback to ${tag}`;
    await run(() => git.stash(["push", "--include-untracked", "-m", message]), "GIT_FAILED", "git stash failed");
    stash = `stash@{0} (${message})`;
  }
  await run(() => git.reset(["--hard", target.sha]), "GIT_FAILED", "git reset failed");
  return { sha: target.sha, tag, undone: commits.slice(0, index).map((c) => c.sha), stash };
}

// useConfigOnly: git must not guess root@hostname; a commit made as that is worse than none.
const identity = (git: SimpleGit): Promise<string> => git.raw(["-c", "user.useConfigOnly=true", "var", "GIT_COMMITTER_IDENT"]);

async function hasIdentity(git: SimpleGit): Promise<boolean> {
  return identity(git).then(
    () => true,
    () => false,
  );
}

async function ensureIdentity(git: SimpleGit, dir: string): Promise<void> {
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
