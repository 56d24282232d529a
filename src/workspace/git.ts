import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/**
 * git run directly with an index file of its own (GIT_INDEX_FILE, which simple-git will not
 * pass), so that the repository's index is never read or written: for building trees and
 * commits without a checkout. The environment is the allowed variables and PATH/HOME only.
 * Output comes back as bytes (`ls-tree -z`, blob contents); a failure carries git's stderr.
 */
export function gitWithIndex(dir: string, indexFile: string): (args: readonly string[], input?: string) => Promise<Buffer> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", GIT_INDEX_FILE: indexFile };
  for (const name of ALLOWED_ENVIRONMENT) if (process.env[name] !== undefined) env[name] = process.env[name];
  // A split index would write its shared part into the repository's .git.
  const config = [...UNTRUSTED_REPOSITORY_CONFIG, "core.splitIndex=false"].flatMap((c) => ["-c", c]);
  return (args, input) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        "git",
        ["-C", dir, ...config, ...args],
        { env, encoding: "buffer", maxBuffer: 1024 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const said = stderr.toString();
          reject(Object.assign(error, { stderr: said, message: said || error.message }));
        },
      );
      // A git that does not read its input closes the pipe: that is not an error of the call.
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(input ?? "");
    });
}

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

  /**
   * Commits these files, as given, on top of HEAD, and tags the commit; null removes a
   * file. The work tree is not touched (it may hold later nodes' files): the tree is built
   * in an index of its own, and the branch's index is then set to the new commit. Returns
   * undefined when the tree would not change.
   */
  async commitFiles(files: ReadonlyMap<string, string | null>, message: string, tag?: string): Promise<string | undefined> {
    const scratch = await mkdtemp(join(tmpdir(), "rpg-forge-index-"));
    const raw = gitWithIndex(this.dir, join(scratch, "index"));
    const git = async (args: readonly string[], input?: string): Promise<string> => (await raw(args, input)).toString("utf8");
    try {
      const head = (await git(["rev-parse", "HEAD"])).trim();
      await git(["read-tree", head]);
      const paths = [...files.keys()].sort();
      const written = paths.filter((p) => files.get(p) !== null);
      await Promise.all(written.map((p, i) => writeFile(join(scratch, `blob-${i}`), files.get(p)!)));
      const blobs =
        written.length === 0
          ? []
          : (await git(["hash-object", "-w", "--stdin-paths"], written.map((_, i) => join(scratch, `blob-${i}`)).join("\n") + "\n"))
              .trim()
              .split("\n");
      const removed = paths.filter((p) => files.get(p) === null).map((p) => `0 ${"0".repeat(40)}\t${p}`);
      const info = [...removed, ...written.map((p, i) => `100644 ${blobs[i]}\t${p}`)];
      await git(["update-index", "--index-info"], `${info.join("\n")}\n`);
      const tree = (await git(["write-tree"])).trim();
      if (tree === (await git(["rev-parse", `${head}^{tree}`])).trim()) return undefined;
      const sha = (await git(["commit-tree", tree, "-p", head, "-F", "-"], message)).trim();
      await git(["update-ref", "-m", message, `refs/heads/${this.branch}`, sha, head]);
      await run(() => this.git.raw(["reset", "--quiet"]), "GIT_FAILED", "git reset failed");
      if (tag) await run(() => this.git.raw(["tag", "--force", tag, sha]), "GIT_FAILED", `git tag ${tag} failed`);
      return sha;
    } catch (error) {
      if (error instanceof RpgForgeError) throw error;
      const said = (error as Error).message.trim().split("\n").filter(Boolean).at(-1) ?? "";
      throw new RpgForgeError("GIT_FAILED", `cannot commit "${message.split("\n")[0]}": ${said}`, { file: this.dir }, undefined, {
        cause: error,
      });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** The commit HEAD is on. */
  async head(): Promise<string> {
    return (await run(() => this.git.revparse(["HEAD"]), "GIT_FAILED", "git rev-parse HEAD failed")).trim();
  }

  /** Creates or moves a branch (not the one checked out) to a commit. */
  async pointBranch(branch: string, sha: string): Promise<void> {
    await run(() => this.git.raw(["branch", "--force", branch, sha]), "GIT_FAILED", `cannot move the branch ${branch}`);
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

/** The commit each local ref under a prefix points at, by short name. */
export async function branchHeads(dir: string, prefix: string): Promise<Map<string, string>> {
  const out = await run(
    () => gitIn(dir).raw(["for-each-ref", "--format=%(refname) %(objectname)", prefix]),
    "GIT_FAILED",
    "git for-each-ref failed",
  );
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
  if (paths.length > 0) await run(() => gitIn(dir).checkout([ref, "--", ...paths]), "GIT_FAILED", `cannot take the files of ${ref}`);
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
 * needs). The other refs are merged in by strategy "ours", so the commit the caller
 * makes descends from every branch it took files from. The caller commits the result.
 */
export async function checkoutWithFiles(
  dir: string,
  branch: string,
  first: string,
  overlays: readonly { ref: string; paths: readonly string[] }[],
): Promise<void> {
  const git = gitIn(dir);
  await run(() => git.checkout(["-B", branch, first]), "GIT_FAILED", `cannot start ${branch} from ${first}`);
  if (overlays.length > 0)
    await run(
      () => git.raw(["merge", "-s", "ours", "--no-ff", "--no-commit", ...overlays.map((o) => o.ref)]),
      "GIT_FAILED",
      `cannot merge ${overlays.map((o) => o.ref).join(", ")} into ${branch}`,
    );
  for (const { ref, paths } of overlays) {
    if (paths.length > 0) await run(() => git.checkout([ref, "--", ...paths]), "GIT_FAILED", `cannot take the files of ${ref}`);
  }
}

/** Commits these paths as they are (the index is otherwise as it was); a merge under way is committed even with nothing staged. */
export async function commitFiles(dir: string, paths: readonly string[], message: string): Promise<void> {
  const git = gitIn(dir);
  await run(() => git.add(["--", ...paths]), "GIT_FAILED", "git add failed");
  const merging = existsSync(join(dir, ".git", "MERGE_HEAD"));
  if (!merging && (await git.diff(["--cached", "--name-only"])).trim() === "") return;
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
