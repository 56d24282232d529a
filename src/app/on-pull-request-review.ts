import type { Context } from "probot";

import { hasAccess, refuse } from "./access.js";
import { configForRequest } from "./config.js";
import { graphOfBranch } from "./graph-of-branch.js";
import { dispatchOnce } from "./request-once.js";
import { notRpgForgePullRequest, type Target } from "./target.js";

/**
 * Changes requested on an rpg-forge pull request: one `revise` run for the review. The run
 * reads the review's comments itself, finds the node each one's line is in, regenerates those
 * nodes with the comments as notes (the tests still decide) and replies to each comment.
 */
export async function onPullRequestReview(context: Context<"pull_request_review.submitted">): Promise<void> {
  const { review, pull_request: pr, sender, repository } = context.payload;
  if (review.state.toLowerCase() !== "changes_requested") return context.log.debug(`review ${review.id} ignored: it requests no changes`);
  if (sender.type === "Bot") return context.log.debug(`review ${review.id} ignored: the sender is a bot`);
  const ignored = notRpgForgePullRequest(pr.head, repository);
  if (ignored !== undefined) return context.log.debug(`review ${review.id} ignored: ${ignored}`);
  const target: Target = { kind: "pull request", number: pr.number };
  const config = await configForRequest(context, target, () => true);
  if (!config) return;
  if (!(await hasAccess(context, sender.login, config.permission))) return refuse(context, target, sender.login, config.permission);

  const to = { ...context.repo(), defaultBranch: repository.default_branch };
  const request = { key: `review-${review.id}`, described: `@${sender.login}'s review` };
  const rpgPath = await graphOfBranch(context.octokit, to, config, pr.head.ref);
  await dispatchOnce(context, to, config, target, request, {
    "rpg-path": rpgPath,
    mode: "revise",
    request: request.key,
    issue: String(pr.number),
  });
}
