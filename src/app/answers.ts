import type { Context } from "probot";

import { MARKER_PREFIX, commentMarker, findCommentsByPrefix, upsertComment } from "../github/comments.js";
import type { RepositoryRef } from "../github/repository.js";
import { pullRequestStatus } from "./pull-status.js";
import { renderStatus } from "./replies.js";
import type { Target } from "./target.js";

/**
 * Answers a comment command with a comment of its own, keyed by the request's comment id: a
 * redelivery, even to another process, edits that answer instead of adding a second one.
 */
export async function answer(octokit: Context["octokit"], repository: RepositoryRef, target: Target, commentId: number, body: string) {
  const where = { ...repository, issueNumber: target.number };
  await upsertComment(octokit, where, commentMarker("answer", String(commentId)), body);
}

/**
 * Answers `status`: on a pull request with its node table as its branch holds it, and the link to
 * its subgraph's report comment (`report:<subgraph>`); on an issue with the link to the run's
 * report (`run-report:<rpg path>`). Both reports are found by marker.
 */
export async function answerStatus(
  octokit: Context["octokit"],
  repository: RepositoryRef,
  target: Target,
  commentId: number,
  prefix: string,
  rpgPath: string,
) {
  const where = { ...repository, issueNumber: target.number };
  // One listing finds the report and this request's earlier answer, if any.
  const ours = await findCommentsByPrefix(octokit, where, MARKER_PREFIX);
  const kind = target.kind === "pull request" ? "report" : "run-report";
  const report = ours.filter((c) => c.body?.startsWith(`${MARKER_PREFIX}${kind}:`)).at(-1);
  const table =
    target.head === undefined ? undefined : await pullRequestStatus(octokit, repository, target.head, rpgPath, report?.html_url);
  const body = table ?? renderStatus(target.kind, report?.html_url, prefix);
  await upsertComment(octokit, where, commentMarker("answer", String(commentId)), body, ours);
}
