import type { Call, Reply } from "./handlers.js";
import type { MergeMethod, Remote } from "./remote.js";
import type { BranchRef, StandInUser, StoredPull } from "./types.js";

/**
 * pulls/merge as GitHub answers it: which pull requests can be merged, the commit messages GitHub writes, and
 * what a merge does to the pull request and, with "Automatically delete head branches", to its branch and to the
 * pull requests stacked on it. remote.ts runs the git.
 */

/** What the merge needs of the repository state in handlers.ts. */
export interface MergeContext {
  remote: Remote;
  owner: string;
  /** Whose token merges: the PR's merged_by. */
  actor: StandInUser;
  now: () => string;
  deleteBranchOnMerge: boolean;
  pulls: StoredPull[];
  /** Moves open pull requests to their branches' tips, and returns every branch's tip. */
  refresh(list: StoredPull[]): Map<string, string>;
  branch(ref: string, tips: Map<string, string>): BranchRef;
}

interface MergeRequest {
  commit_title?: string;
  commit_message?: string;
  sha?: string;
  merge_method?: MergeMethod;
}

const refused = (call: Call, status: 405 | 409, message: string): Reply => ({
  status,
  body: { message, documentation_url: call.operation.docsUrl, status: String(status) },
});

export function mergePull(context: MergeContext, pull: StoredPull, call: Call): Reply {
  const { remote, pulls } = context;
  const asked = call.body as MergeRequest;
  const method = asked.merge_method ?? "merge";
  if (pull.state !== "open") return refused(call, 405, "Pull Request is not mergeable");
  const tips = context.refresh([pull]);
  if (asked.sha !== undefined && asked.sha !== pull.head.sha) {
    return refused(call, 409, "Head branch was modified. Review and try the merge again.");
  }
  const [headSha, baseSha] = [tips.get(pull.head.ref), tips.get(pull.base.ref)];
  // A branch deleted since, or a head already in base (pushed there directly), leaves nothing to merge.
  if (!headSha || !baseSha || remote.contains(baseSha, headSha)) return refused(call, 405, "Pull Request is not mergeable");

  const commits = method === "squash" ? remote.messages(baseSha, headSha) : [];
  const message = commitMessage(method, pull, context.owner, asked, commits);
  const stamp = context.now();
  const merged = remote.merge({ method, baseRef: pull.base.ref, baseSha, headSha, message, date: stamp });
  if (!merged) return refused(call, 405, method === "rebase" ? "This branch can't be rebased" : "Pull Request is not mergeable");

  Object.assign(pull, {
    state: "closed",
    closed_at: stamp,
    updated_at: stamp,
    merged_at: stamp,
    merge_commit_sha: merged.sha,
    merged_by: context.actor,
  } satisfies Partial<StoredPull>);
  // GitHub keeps a head branch that another open pull request still proposes.
  if (context.deleteBranchOnMerge && !pulls.some((o) => o.state === "open" && o.head.ref === pull.head.ref)) {
    remote.deleteBranch(pull.head.ref, headSha);
    // Pull requests based on the deleted branch would be left without a base; GitHub moves them onto the merged one's.
    const after = remote.tips();
    for (const stacked of pulls.filter((o) => o.state === "open" && o.base.ref === pull.head.ref)) {
      stacked.base = context.branch(pull.base.ref, after);
      stacked.updated_at = stamp;
    }
  }
  return { status: 200, body: { sha: merged.sha, merged: true, message: "Pull Request successfully merged" } };
}

/**
 * GitHub's default messages: "Merge pull request #N from owner/branch" over the PR title, or for a squash the
 * PR title with its number over the squashed commits' messages. commit_title and commit_message replace either
 * part; a rebase keeps each commit's own message and ignores both.
 */
function commitMessage(method: MergeMethod, pull: StoredPull, owner: string, asked: MergeRequest, commits: string[]): string {
  if (method === "rebase") return "";
  const squash = method === "squash";
  const title =
    asked.commit_title ??
    (squash ? `${pull.title} (#${pull.number})` : `Merge pull request #${pull.number} from ${owner}/${pull.head.ref}`);
  const detail = asked.commit_message ?? (squash ? commits.map((m) => `* ${m}`).join("\n\n") : pull.title);
  return detail ? `${title}\n\n${detail}` : title;
}
