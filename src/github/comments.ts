import { redactSecrets } from "../redact.js";
import { COMMENT_LIMIT, fitToLimit } from "../report/fit-limit.js";
import type { GitHubClient, RepositoryRef } from "./repository.js";

/**
 * The hidden line that tells our comments apart, so that a rerun edits its comment
 * instead of adding another: `<!-- rpg-forge:<kind>:<key> -->`.
 */
export function commentMarker(kind: string, key: string): string {
  return `${MARKER_PREFIX}${kind}:${key.replace(/--/g, "-\u200b-")} -->`;
}

export interface UpsertedComment {
  id: number;
  url: string;
  created: boolean;
}

/** The prefix every marker of ours starts with, to list all our comments on an issue at once. */
export const MARKER_PREFIX = "<!-- rpg-forge:";

/**
 * Creates the comment carrying `marker` on an issue or PR, or edits the one already
 * there (left untouched when the body is the same). `body` must already fit GitHub's
 * limit together with the marker; it is posted without secrets (redactSecrets).
 * `ours`, our comments there as listed once by the caller, saves a listing per
 * comment when a PR gets many.
 */
export async function upsertComment(
  octokit: GitHubClient,
  where: RepositoryRef & { issueNumber: number },
  marker: string,
  body: string,
  ours?: readonly ListedComment[],
): Promise<UpsertedComment> {
  // Bodies quote generated code and its output, which may print a secret it found; a
  // redacted secret can be longer than its value, so the body is fitted again.
  const full = `${marker}\n${fitToLimit(redactSecrets(body), COMMENT_LIMIT - marker.length - 1)}`;
  const existing = ours ? ours.find((c) => c.body?.startsWith(marker)) : await findComment(octokit, where, marker);
  if (existing) {
    if (existing.body !== full)
      await octokit.rest.issues.updateComment({ owner: where.owner, repo: where.repo, comment_id: existing.id, body: full });
    return { id: existing.id, url: existing.html_url, created: false };
  }
  const { data } = await octokit.rest.issues.createComment({
    owner: where.owner,
    repo: where.repo,
    issue_number: where.issueNumber,
    body: full,
  });
  return { id: data.id, url: data.html_url, created: true };
}

/** Our comment with this marker, if there is one. */
export async function findComment(octokit: GitHubClient, where: RepositoryRef & { issueNumber: number }, marker: string) {
  return (await findCommentsByPrefix(octokit, where, marker))[0];
}

export type ListedComment = Awaited<ReturnType<typeof findCommentsByPrefix>>[number];

/** Every comment on the issue or PR whose marker starts with `prefix`. */
export async function findCommentsByPrefix(octokit: GitHubClient, where: RepositoryRef & { issueNumber: number }, prefix: string) {
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    owner: where.owner,
    repo: where.repo,
    issue_number: where.issueNumber,
    per_page: 100,
  });
  // Only bots' comments qualify: a person quoting our marker must never be overwritten.
  return comments.filter((c) => c.user?.type === "Bot" && c.body?.startsWith(prefix));
}
