import type { Context } from "probot";

import { PR_BRANCH_ROOT } from "../record/branch-names.js";

/** Where a request was made, and where its answers and its run's report go. */
export interface Target {
  kind: "issue" | "pull request";
  number: number;
  /** A pull request's head branch, when the handler asked GitHub for it. */
  head?: string;
}

interface PullRequestHead {
  ref: string;
  repo: { full_name: string } | null;
}

/**
 * Why a pull request is not one of rpg-forge's, or undefined when it is: its head must be an
 * `rpg/**` branch of this repository. A fork's pull request never starts a run: the run
 * holds the repository's secrets, and rpg-forge pushes its branches here, never to a fork.
 */
export function notRpgForgePullRequest(head: PullRequestHead, repository: { full_name: string }): string | undefined {
  if (head.repo?.full_name !== repository.full_name) return "the pull request comes from a fork";
  if (!head.ref.startsWith(PR_BRANCH_ROOT)) return `the pull request's branch ${head.ref} is not rpg-forge's (${PR_BRANCH_ROOT}**)`;
  return undefined;
}

/** The issue or rpg-forge pull request a comment was made on, or why it is neither. */
export async function commentTarget(context: Context<"issue_comment.created">): Promise<Target | { ignored: string }> {
  const { issue, repository } = context.payload;
  if (!issue.pull_request) return { kind: "issue", number: issue.number };
  // The comment event does not say where the pull request comes from.
  const { data: pr } = await context.octokit.rest.pulls.get(context.pullRequest());
  const ignored = notRpgForgePullRequest(pr.head, repository);
  return ignored === undefined ? { kind: "pull request", number: issue.number, head: pr.head.ref } : { ignored };
}
