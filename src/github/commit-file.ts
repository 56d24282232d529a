import type { GitHubClient, RepositoryRef } from "./repository.js";

export interface FileOnBranch {
  /** The branch to point at the commit; made when missing, moved with force when not already there. */
  branch: string;
  /** The branch the commit is made on top of (its head, as it is now). */
  from: string;
  path: string;
  content: string;
  message: string;
}

export interface CommittedFile {
  /** The commit the branch points at. */
  sha: string;
  /** Whether a commit was made: false when the branch already held it, or `from` already holds the file. */
  written: boolean;
}

/**
 * Makes `branch` the head of `from` with one file added or replaced, through the git data API (blobs,
 * trees, commits, refs: contents write permission; nothing is checked out). Idempotent: when `branch`
 * already is exactly that (one commit on `from`'s current head, with the same tree), nothing is
 * committed or moved; the blob and tree are content-addressed, so writing them again changes nothing.
 * When `from` already holds the same file, the branch points at `from`'s head itself. GitHub's
 * refusals (a 4xx, e.g. a folder at `path`, an empty repository) are thrown as they come.
 */
export async function commitFileToBranch(octokit: GitHubClient, repository: RepositoryRef, file: FileOnBranch): Promise<CommittedFile> {
  const repo = { owner: repository.owner, repo: repository.repo };
  const { data: fromRef } = await octokit.rest.git.getRef({ ...repo, ref: `heads/${file.from}` });
  const base = fromRef.object.sha;
  const { data: baseCommit } = await octokit.rest.git.getCommit({ ...repo, commit_sha: base });
  const { data: blob } = await octokit.rest.git.createBlob({
    ...repo,
    content: Buffer.from(file.content, "utf8").toString("base64"),
    encoding: "base64",
  });
  const { data: tree } = await octokit.rest.git.createTree({
    ...repo,
    base_tree: baseCommit.tree.sha,
    tree: [{ path: file.path, mode: "100644", type: "blob", sha: blob.sha }],
  });
  const head = await branchHead(octokit, repository, file.branch);
  const unchanged = tree.sha === baseCommit.tree.sha;
  if (head !== undefined) {
    if (unchanged && head === base) return { sha: head, written: false };
    if (!unchanged) {
      const { data: headCommit } = await octokit.rest.git.getCommit({ ...repo, commit_sha: head });
      if (headCommit.tree.sha === tree.sha && headCommit.parents.length === 1 && headCommit.parents[0]!.sha === base)
        return { sha: head, written: false };
    }
  }
  const sha = unchanged
    ? base
    : (await octokit.rest.git.createCommit({ ...repo, message: file.message, tree: tree.sha, parents: [base] })).data.sha;
  await pointBranch(octokit, repository, file.branch, sha, head !== undefined);
  return { sha, written: !unchanged };
}

/** The commit a branch points at, or undefined when there is no such branch. */
async function branchHead(octokit: GitHubClient, repository: RepositoryRef, branch: string): Promise<string | undefined> {
  try {
    const { data } = await octokit.rest.git.getRef({ owner: repository.owner, repo: repository.repo, ref: `heads/${branch}` });
    return data.object.sha;
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return undefined;
    throw error;
  }
}

/** Creates the branch at `sha`, or moves it there with force; a branch another delivery created meanwhile is moved. */
async function pointBranch(octokit: GitHubClient, repository: RepositoryRef, branch: string, sha: string, exists: boolean): Promise<void> {
  const repo = { owner: repository.owner, repo: repository.repo };
  if (!exists) {
    try {
      await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha });
      return;
    } catch (error) {
      if ((error as { status?: unknown }).status !== 422) throw error; // 422: "Reference already exists"
    }
  }
  await octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha, force: true });
}
