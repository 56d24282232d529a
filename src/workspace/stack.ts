import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RpgForgeError } from "../errors.js";
import { gitIn, type Git } from "./git-runner.js";

/**
 * A linear stack of PR branches, one commit per level, rebuilt with plumbing only: the
 * repository's work tree, HEAD and index are never touched. Each level's tree is its
 * parent's with every path rpg-forge owns set as in the level's source commit, so paths
 * a person owns (README, workflows) come from the base, and after any merge method the
 * remaining levels rebuilt on the new base each show only their own diff.
 */

/** The trailer naming the branch a commit of ours was made for. */
export const STACK_BRANCH_TRAILER = "Rpg-Forge-Branch";
/**
 * The trailer naming the tree a commit of ours was made with. `git commit --amend` keeps
 * the message and its trailers; a tree that no longer matches tells a person's amended
 * commit from ours.
 */
export const STACK_TREE_TRAILER = "Rpg-Forge-Tree";

export interface StackLevel {
  branch: string;
  /** Commit-ish whose owned files define the level. */
  source: string;
  message: string;
}

export interface StackOptions {
  /** A non-bare repository; the branches are its local branches. */
  dir: string;
  /** Commit-ish the first level sits on. */
  base: string;
  /** In merge order. */
  levels: readonly StackLevel[];
  /** Paths rpg-forge writes. */
  owned: (path: string) => boolean;
}

export type LevelChange = "unchanged" | "created" | "updated";

export interface StackedLevel {
  branch: string;
  sha: string;
  previous: string | undefined;
  change: LevelChange;
  /** `previous` exists and is not an ancestor of `sha`: pushing needs a force (with lease). */
  forced: boolean;
}

export interface HeldLevel {
  branch: string;
  /** The branch head, left as it is (a person's commit when "edited"). */
  head: string | undefined;
  reason: "edited" | "below-edited";
}

export interface StackResult {
  levels: StackedLevel[];
  held: HeldLevel[];
}

/** The message of a stack commit: the caller's, then our trailers as its last paragraph. */
export function stackMessage(message: string, branch: string, tree: string): string {
  return `${message.trimEnd()}\n\n${STACK_TREE_TRAILER}: ${tree}\n${STACK_BRANCH_TRAILER}: ${branch}\n`;
}

/** Whether a commit is one buildStack made for `branch` and nobody has amended since. */
export function isStackCommit(commit: { message: string; tree: string }, branch: string): boolean {
  const lastParagraph =
    commit.message
      .trimEnd()
      .split(/\n[ \t]*\n/)
      .at(-1) ?? "";
  const lines = lastParagraph.split("\n").map((line) => line.trim());
  return lines.includes(`${STACK_BRANCH_TRAILER}: ${branch}`) && lines.includes(`${STACK_TREE_TRAILER}: ${commit.tree}`);
}

/** Builds or restacks the levels on `base` and moves their local branches, all or none. */
export async function buildStack(options: StackOptions): Promise<StackResult> {
  const branches = options.levels.map((level) => level.branch);
  const twice = branches.find((branch, i) => branches.indexOf(branch) !== i);
  if (twice !== undefined) throw new RpgForgeError("GIT_FAILED", `the branch ${twice} is named by two levels of the stack`);
  const scratch = await mkdtemp(join(tmpdir(), "rpg-forge-stack-"));
  const git = gitIn(options.dir, { indexFile: join(scratch, "index") });
  try {
    const [base, ...sources] = await resolveCommits(git, [options.base, ...options.levels.map((level) => level.source)]);
    if (base === undefined) throw new RpgForgeError("GIT_FAILED", `the base ${options.base} of the stack is not a commit`);
    const heads = await branchHeads(git, branches);
    const commits = await readCommits(git, [...new Set(heads.values())]);
    const checkedOut = await checkedOutBranches(git);
    const tree = await LevelTree.start(git, base, options.owned);
    const result: StackResult = { levels: [], held: [] };
    const moves: string[] = [];
    let parent = base;
    for (const [i, level] of options.levels.entries()) {
      const { branch } = level;
      const head = heads.get(branch);
      if (result.held.length > 0) {
        result.held.push({ branch, head, reason: "below-edited" });
        continue;
      }
      const current = head === undefined ? undefined : commits.get(head);
      if (head !== undefined && !(current && isStackCommit(current, branch))) {
        // Renovate's rule: a person's commit is never pushed over, nor is anything stacked on it.
        result.held.push({ branch, head, reason: "edited" });
        continue;
      }
      const source = sources[i];
      if (source === undefined) throw new RpgForgeError("GIT_FAILED", `the source ${level.source} of the branch ${branch} is not a commit`);
      const wanted = await tree.apply(source, branch);
      if (current && current.tree === wanted && current.parents.length === 1 && current.parents[0] === parent) {
        result.levels.push({ branch, sha: head!, previous: head, change: "unchanged", forced: false });
        parent = head!;
        continue;
      }
      const where = checkedOut.get(branch);
      if (where !== undefined)
        throw new RpgForgeError("GIT_FAILED", `the branch ${branch} is checked out in ${where}, so rpg-forge will not move it`, {
          file: where,
        });
      const message = stackMessage(level.message, branch, wanted);
      const sha = text(
        await call(branch, "cannot commit", () => git(["commit-tree", "--no-gpg-sign", wanted, "-p", parent, "-F", "-"], message)),
      );
      const forced = head !== undefined && !(await isAncestor(git, head, sha, branch));
      result.levels.push({ branch, sha, previous: head, change: head === undefined ? "created" : "updated", forced });
      moves.push(head === undefined ? `create refs/heads/${branch} ${sha}` : `update refs/heads/${branch} ${sha} ${head}`);
      parent = sha;
    }
    // One transaction, checked against the heads read above: a branch moved meanwhile fails them all.
    if (moves.length > 0)
      await call(undefined, "cannot move the stack's branches", () =>
        git(["update-ref", "-m", "rpg-forge: stack", "--stdin"], moves.join("\n") + "\n"),
      );
    return result;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const text = (out: Buffer): string => out.toString("utf8").trim();

async function call<T>(branch: string | undefined, what: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    const failure = error as Error & { stderr?: string };
    const said = (failure.stderr || failure.message).trim().split("\n").filter(Boolean).at(-1) ?? "";
    const subject = branch === undefined ? what : `${what} (branch ${branch})`;
    throw new RpgForgeError("GIT_FAILED", `${subject}: ${said}`, {}, undefined, { cause: error });
  }
}

/** Each name as a commit sha, or undefined where it names no commit; one process for all. */
async function resolveCommits(git: Git, names: readonly string[]): Promise<(string | undefined)[]> {
  const bad = names.find((name) => /[\n\0]/.test(name) || name === "");
  if (bad !== undefined) throw new RpgForgeError("GIT_FAILED", `${JSON.stringify(bad)} is not a commit name`);
  const out = await call(undefined, "cannot resolve the stack's commits", () =>
    git(["cat-file", "--batch-check=%(objectname)"], names.map((name) => `${name}^{commit}`).join("\n") + "\n"),
  );
  // A name that resolves gives its sha; one that does not gives "<name> missing" (or "ambiguous").
  return out
    .toString("utf8")
    .split("\n")
    .slice(0, names.length)
    .map((line) => (/^[0-9a-f]{40,64}$/.test(line) ? line : undefined));
}

async function branchHeads(git: Git, branches: readonly string[]): Promise<Map<string, string>> {
  if (branches.length === 0) return new Map();
  const refs = branches.map((branch) => `refs/heads/${branch}`);
  const out = await call(undefined, "cannot list the stack's branches", () =>
    git(["for-each-ref", "--format=%(objectname) %(refname)", ...refs]),
  );
  const wanted = new Set(refs);
  const heads = new Map<string, string>();
  for (const line of text(out).split("\n")) {
    const [sha = "", ref = ""] = line.split(" ");
    if (wanted.has(ref)) heads.set(ref.slice("refs/heads/".length), sha);
  }
  return heads;
}

interface CommitInfo {
  tree: string;
  parents: string[];
  message: string;
}

/** The commits among `shas` (a branch can point at a tag or tree), read in one process. */
async function readCommits(git: Git, shas: readonly string[]): Promise<Map<string, CommitInfo>> {
  const commits = new Map<string, CommitInfo>();
  if (shas.length === 0) return commits;
  const out = await call(undefined, "cannot read the stack's branch heads", () => git(["cat-file", "--batch"], shas.join("\n") + "\n"));
  // "<sha> <type> <size>\n<size bytes>\n" per object: sizes are bytes, so the parse stays on the Buffer.
  for (let at = 0; at < out.length;) {
    const eol = out.indexOf(0x0a, at);
    const [sha = "", type = "", size = ""] = out.toString("utf8", at, eol).split(" ");
    at = eol + 1;
    if (type === "missing" || size === "") continue;
    const body = out.toString("utf8", at, at + Number(size));
    at += Number(size) + 1;
    if (type !== "commit") continue;
    const end = body.indexOf("\n\n");
    const headers = (end < 0 ? body : body.slice(0, end)).split("\n");
    commits.set(sha, {
      tree: headers.find((h) => h.startsWith("tree "))?.slice(5) ?? "",
      parents: headers.filter((h) => h.startsWith("parent ")).map((h) => h.slice(7)),
      message: end < 0 ? "" : body.slice(end + 2),
    });
  }
  return commits;
}

/** Branch → the work tree it is checked out in (the repository's own included). */
async function checkedOutBranches(git: Git): Promise<Map<string, string>> {
  const out = await call(undefined, "cannot list the worktrees", () => git(["worktree", "list", "--porcelain"]));
  const found = new Map<string, string>();
  let path = "";
  for (const line of out.toString("utf8").split("\n")) {
    if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
    else if (line.startsWith("branch refs/heads/")) found.set(line.slice("branch refs/heads/".length), path);
  }
  return found;
}

async function isAncestor(git: Git, ancestor: string, of: string, branch: string): Promise<boolean> {
  // Exit status 1 is the answer "no"; anything else is a failure.
  const answer = git(["merge-base", "--is-ancestor", ancestor, of]).then(
    () => true,
    (error: { code?: unknown }) => (error.code === 1 ? false : Promise.reject(error)),
  );
  return call(branch, "cannot compare the old and new heads", () => answer);
}

/** `ls-tree -r` of a commit: path → "mode type object", the form `update-index --index-info` reads back. */
async function listTree(git: Git, commit: string, branch: string | undefined): Promise<Map<string, string>> {
  const out = await call(branch, `cannot list the files of ${commit}`, () => git(["ls-tree", "-r", "-z", "--full-tree", commit]));
  const entries = new Map<string, string>();
  for (const record of out.toString("utf8").split("\0")) {
    const tab = record.indexOf("\t");
    if (tab > 0) entries.set(record.slice(tab + 1), record.slice(0, tab));
  }
  return entries;
}

/**
 * The tree of the level being built, kept both in memory and in the temporary index:
 * each level only changes owned paths, so one `update-index` of the difference per level
 * and a `write-tree` (which reuses the unchanged subtrees) make it.
 */
class LevelTree {
  private constructor(
    private readonly git: Git,
    private readonly entries: Map<string, string>,
    private readonly owned: (path: string) => boolean,
    /** The base's paths nobody at rpg-forge owns, and their folders: every level keeps them. */
    private readonly foreignFiles: ReadonlySet<string>,
    private readonly foreignFolders: ReadonlySet<string>,
    private readonly zero: string,
  ) {}

  static async start(git: Git, base: string, owned: (path: string) => boolean): Promise<LevelTree> {
    const entries = await listTree(git, base, undefined);
    const foreignFiles = new Set([...entries.keys()].filter((path) => !owned(path)));
    const foreignFolders = new Set([...foreignFiles].flatMap(folders));
    await call(undefined, `cannot read the tree of ${base}`, () => git(["read-tree", base]));
    return new LevelTree(git, entries, owned, foreignFiles, foreignFolders, "0".repeat(base.length));
  }

  /** Sets the owned paths as they are in `source`; returns the resulting tree. */
  async apply(source: string, branch: string): Promise<string> {
    const wanted = new Map([...(await listTree(this.git, source, branch))].filter(([path]) => this.owned(path)));
    const removals: string[] = [];
    const additions: string[] = [];
    for (const path of this.entries.keys()) {
      if (this.owned(path) && !wanted.has(path)) {
        removals.push(`0 ${this.zero}\t${path}`);
        this.entries.delete(path);
      }
    }
    for (const [path, entry] of wanted) {
      if (this.entries.get(path) === entry) continue;
      // The index would silently drop the person's file to make room; refuse instead.
      const clash = this.foreignFolders.has(path) ? path : folders(path).find((folder) => this.foreignFiles.has(folder));
      if (clash !== undefined)
        throw new RpgForgeError("GIT_FAILED", `the branch ${branch} would write ${path}, which clashes with the base's own ${clash}`, {
          file: path,
        });
      additions.push(`${entry}\t${path}`);
      this.entries.set(path, entry);
    }
    const changes = [...removals, ...additions];
    if (changes.length > 0)
      await call(branch, "cannot stage the level's files", () =>
        this.git(["update-index", "-z", "--index-info"], changes.join("\0") + "\0"),
      );
    return text(await call(branch, "cannot write the level's tree", () => this.git(["write-tree"])));
  }
}

/** The folders a path sits in: a/b/c → a, a/b. */
function folders(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
}
