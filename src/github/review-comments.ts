import { redactSecrets } from "../redact.js";
import { COMMENT_LIMIT, fitToLimit } from "../report/fit-limit.js";
import { commentMarker } from "./comments.js";
import type { GitHubClient, RepositoryRef } from "./repository.js";

/** A person's request as text: a comment command's, or a review's summary. */
export interface RequestText {
  author: string;
  body: string;
}

/** An inline comment of a review: where it is (the line in the commit it was made on) and what it says. */
export interface InlineComment {
  id: number;
  author: string;
  body: string;
  path: string;
  /** The line in `commitId`'s file; undefined for a comment on a whole file. */
  line: number | undefined;
  commitId: string;
  /** The diff lines the comment was made under, as GitHub shows them. */
  diffHunk: string;
}

/** The text of an issue or pull request comment. */
export async function readIssueComment(octokit: GitHubClient, repository: RepositoryRef, commentId: number): Promise<RequestText> {
  const { data } = await octokit.rest.issues.getComment({ ...repository, comment_id: commentId });
  return { author: data.user?.login ?? "someone", body: data.body ?? "" };
}

/** A review's summary and its inline comments (replies to earlier threads left out: they answer, not ask). */
export async function readReview(
  octokit: GitHubClient,
  repository: RepositoryRef,
  pullNumber: number,
  reviewId: number,
): Promise<{ summary: RequestText; comments: InlineComment[] }> {
  const { data: review } = await octokit.rest.pulls.getReview({ ...repository, pull_number: pullNumber, review_id: reviewId });
  const listed = await octokit.paginate(octokit.rest.pulls.listCommentsForReview, {
    ...repository,
    pull_number: pullNumber,
    review_id: reviewId,
    per_page: 100,
  });
  const author = review.user?.login ?? "someone";
  const comments = listed
    .filter((c) => c.in_reply_to_id === undefined)
    .map((c) => ({
      id: c.id,
      author: c.user?.login ?? author,
      body: c.body,
      path: c.path,
      // A comment on an outdated diff has no line in the head; its original line is in its original commit.
      line: c.line ?? c.original_line ?? undefined,
      commitId: c.line != null ? c.commit_id : c.original_commit_id,
      diffHunk: c.diff_hunk,
    }));
  return { summary: { author, body: review.body ?? "" }, comments };
}

/**
 * Replies to each inline comment once: a rerun of the same request edits its replies (found by
 * their markers among the bots' comments of the pull request, listed once) instead of adding more.
 */
export async function upsertReviewReplies(
  octokit: GitHubClient,
  repository: RepositoryRef,
  pullNumber: number,
  replies: readonly { commentId: number; text: string }[],
): Promise<void> {
  if (replies.length === 0) return;
  const all = await octokit.paginate(octokit.rest.pulls.listReviewComments, { ...repository, pull_number: pullNumber, per_page: 100 });
  for (const { commentId, text } of replies) {
    const marker = commentMarker("review-reply", String(commentId));
    const body = `${marker}\n${fitToLimit(redactSecrets(text), COMMENT_LIMIT - marker.length - 1)}`;
    // Only bots' comments qualify: a person quoting our marker must never be overwritten.
    const existing = all.find((c) => c.user?.type === "Bot" && c.in_reply_to_id === commentId && c.body.startsWith(marker));
    if (!existing)
      await octokit.rest.pulls.createReplyForReviewComment({ ...repository, pull_number: pullNumber, comment_id: commentId, body });
    else if (existing.body !== body) await octokit.rest.pulls.updateReviewComment({ ...repository, comment_id: existing.id, body });
  }
}
