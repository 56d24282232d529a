import type { Context } from "probot";

import { loadAppConfig } from "./config.js";
import { dispatchRun, reportDispatchFailure } from "./dispatch.js";
import { graphOfBranch } from "./graph-of-branch.js";
import { notRpgForgePullRequest } from "./target.js";
import { workflowStartsOn } from "./workflow-triggers.js";

/**
 * A merged rpg-forge pull request: restack the ones stacked on it onto its base branch.
 * Neither the sender's type nor their access is checked: GitHub lets only people with write
 * access merge, and merge queues and auto-merge merge as bots; rpg-forge itself never merges,
 * so this cannot loop.
 */
export async function onPullRequestClosed(context: Context<"pull_request.closed">): Promise<void> {
  const { pull_request: pr, repository } = context.payload;
  if (!pr.merged) return;
  const ignored = notRpgForgePullRequest(pr.head, repository);
  if (ignored !== undefined) return context.log.debug(`merge of #${pr.number} ignored: ${ignored}`);
  const config = await loadAppConfig(context);
  const to = { ...context.repo(), defaultBranch: repository.default_branch };
  // The template restacks on a merged pull request by itself: a second run would only race it for the same leases.
  if (await workflowStartsOn(context.octokit, to, config, "pull_request"))
    return context.log.debug(`merge of #${pr.number}: ${config.workflow} restacks on its own`);
  const rpgPath = await graphOfBranch(context.octokit, to, config, pr.head.ref);
  const dispatched = await dispatchRun(context.octokit, to, config, { "rpg-path": rpgPath, mode: "restack", "base-branch": pr.base.ref });
  if (!dispatched.ok)
    await reportDispatchFailure(context.octokit, to, config, { kind: "pull request", number: pr.number }, "restack", dispatched);
}
