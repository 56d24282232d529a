import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RpgForgeError } from "../errors.js";
import { gitIn, type Git } from "./git-runner.js";

/** Paths to take as a commit has them; the commit becomes a parent too. */
export interface FilesOf {
  ref: string;
  paths: readonly string[];
}

export interface NewCommit {
  /** The first parent: the new tree is its tree with the changes below. */
  parent: string;
  /** Content by path, as given (not as the work tree has it); null removes the file. Laid after `merging`. */
  files: ReadonlyMap<string, string | null>;
  message: string;
  /**
   * Further parents, each with the named paths as it has them (matrix mode), so the commit
   * descends from every branch it took files from. One already in another parent's history
   * is left out, as git merge leaves it out.
   */
  merging?: readonly FilesOf[];
  /** Moved from `parent` to the new commit; git refuses if it has moved meanwhile. */
  branch?: string;
  /** Set (or moved) to the new commit. */
  tag?: string;
}

/**
 * The one way rpg-forge commits. The tree is built in an index of its own, so neither the
 * work tree (it may hold later nodes' files) nor the repository's index is read or written.
 * Returns the commit, or undefined, having made none, when it would change nothing: the
 * tree is the parent's and there is no further parent.
 */
export async function commitFiles(dir: string, commit: NewCommit): Promise<string | undefined> {
  const scratch = await mkdtemp(join(tmpdir(), "rpg-forge-index-"));
  const git = gitIn(dir, { indexFile: join(scratch, "index") });
  const say = async (args: readonly string[], input?: string): Promise<string> => (await git(args, input)).toString("utf8").trim();
  try {
    const parent = await say(["rev-parse", "--verify", `${commit.parent}^{commit}`]);
    await say(["read-tree", parent]);
    const merged: string[] = [];
    for (const { ref, paths } of commit.merging ?? []) {
      merged.push(await say(["rev-parse", "--verify", `${ref}^{commit}`]));
      await stageFilesOf(git, ref, paths);
    }
    await stageContents(git, scratch, commit.files, "0".repeat(parent.length));
    const tree = await say(["write-tree"]);
    const parents = await independentParents(say, parent, merged);
    if (parents.length === 1 && tree === (await say(["rev-parse", `${parent}^{tree}`]))) return undefined;
    const sha = await say(["commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-F", "-"], commit.message);
    if (commit.branch !== undefined) await say(["update-ref", "-m", commit.message, `refs/heads/${commit.branch}`, sha, parent]);
    if (commit.tag !== undefined) await say(["tag", "--force", commit.tag, sha]);
    return sha;
  } catch (error) {
    if (error instanceof RpgForgeError) throw error;
    const said = (error as Error).message.trim().split("\n").filter(Boolean).at(-1) ?? "";
    throw new RpgForgeError("GIT_FAILED", `cannot commit "${commit.message.split("\n")[0]}": ${said}`, { file: dir }, undefined, {
      cause: error,
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Sets the paths in the index as `ref` has them: its blobs, never the work tree's copies. */
async function stageFilesOf(git: Git, ref: string, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const entries = new Map<string, string>();
  for (const record of (await git(["ls-tree", "-r", "-z", "--full-tree", ref])).toString("utf8").split("\0")) {
    const tab = record.indexOf("\t");
    if (tab > 0) entries.set(record.slice(tab + 1), record.slice(0, tab));
  }
  const missing = paths.find((path) => !entries.has(path));
  if (missing !== undefined) throw new RpgForgeError("GIT_FAILED", `cannot take ${missing} from ${ref}: it has no such file`);
  // "mode type object<TAB>path", as ls-tree gives it, is a form update-index reads back.
  await git(["update-index", "-z", "--index-info"], paths.map((path) => `${entries.get(path)}\t${path}`).join("\0") + "\0");
}

async function stageContents(git: Git, scratch: string, files: ReadonlyMap<string, string | null>, zero: string): Promise<void> {
  const paths = [...files.keys()].sort();
  if (paths.length === 0) return;
  const written = paths.filter((p) => files.get(p) !== null);
  // Blobs go in through files, one process for all of them; content on the command line could be any size.
  await Promise.all(written.map((p, i) => writeFile(join(scratch, `blob-${i}`), files.get(p)!)));
  const blobs =
    written.length === 0
      ? []
      : (await git(["hash-object", "-w", "--stdin-paths"], written.map((_, i) => join(scratch, `blob-${i}`)).join("\n") + "\n"))
          .toString("utf8")
          .trim()
          .split("\n");
  const removed = paths.filter((p) => files.get(p) === null).map((p) => `0 ${zero}\t${p}`);
  const info = [...removed, ...written.map((p, i) => `100644 ${blobs[i]}\t${p}`)];
  await git(["update-index", "-z", "--index-info"], info.join("\0") + "\0");
}

/** `parent`, then those of `merged` that no other of them already holds in its history, in their order. */
async function independentParents(
  say: (args: readonly string[]) => Promise<string>,
  parent: string,
  merged: readonly string[],
): Promise<string[]> {
  if (merged.length === 0) return [parent];
  const independent = new Set((await say(["merge-base", "--independent", parent, ...merged])).split("\n"));
  return [parent, ...new Set(merged.filter((sha) => sha !== parent && independent.has(sha)))];
}
