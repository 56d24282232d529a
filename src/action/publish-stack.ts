import * as core from "@actions/core";
import type { Checkpoint } from "../engine/checkpoint.js";
import { publishCheckRuns } from "../github/check-runs.js";
import { publishSubgraphs, type PublishedPullRequest } from "../github/publish.js";
import { createOctokit } from "../github/repository.js";
import type { Plan } from "../plan/plan.js";
import { baseBranchOf, workflowFile, type ActionContext } from "./context.js";
import type { ActionInputs } from "./inputs.js";
import { pushRunRecord, pushStack, type PushedStack } from "./push-stack.js";
import { runBranch } from "../record/branch-names.js";
import type { RemoteAuth } from "../workspace/remote.js";
import type { StackResult } from "../workspace/stack.js";

/** A word for a POSIX shell: the retry command is copied into terminals, and node ids are free text. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9._/:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * One PR per level of the pushed stack, each against the level below, with the report and failed-node comments;
 * written as the App (app-id), also a check run per PR with a "Retry failed" button the App answers. Without the
 * App there is none: a check run made with GITHUB_TOKEN belongs to GitHub Actions, whose button would reach no one.
 */
export async function publishStack(
  inputs: ActionInputs,
  context: ActionContext,
  run: { plan: Plan; checkpoint: Checkpoint; rpgPath: string; model: string },
  pushed: PushedStack,
): Promise<PublishedPullRequest[]> {
  if (!inputs.githubToken) {
    core.warning("no github-token: branches were pushed, but no pull request was opened");
    return [];
  }
  const octokit = createOctokit(inputs.githubToken, context.apiUrl);
  const prs = await publishSubgraphs({
    octokit,
    repository: context.repository,
    ...run,
    baseBranch: await baseBranchOf(inputs, context, octokit),
    branches: pushed.branches,
    retryCommand: (nodeId) =>
      `gh workflow run ${shellWord(workflowFile(context))} -f mode=retry -f rpg-path=${shellWord(run.rpgPath)} -f nodes=${shellWord(nodeId)}`,
    stack: pushed.stack,
    held: pushed.held,
    issue: inputs.issue,
  });
  if (inputs.appId !== "") {
    const written = await publishCheckRuns({
      octokit,
      repository: context.repository,
      plan: run.plan,
      checkpoint: run.checkpoint,
      rpgPath: run.rpgPath,
      prs,
      heads: pushed.heads,
      appId: /^\d+$/.test(inputs.appId) ? Number(inputs.appId) : undefined,
    });
    for (const [subgraph, write] of written) core.info(`check run of ${subgraph}: ${write}`);
  }
  return prs;
}

/**
 * A whole run's work goes out, as a single job's run and matrix mode's report job both end: the
 * stack's branches (leased on what the run fetched), the run's tags and branch, and the PRs.
 */
export async function shipRun(
  inputs: ActionInputs,
  context: ActionContext,
  run: {
    dir: string;
    plan: Plan;
    rpgName: string;
    runId: string;
    stack: StackResult;
    remoteHeads: ReadonlyMap<string, string>;
    auth: RemoteAuth | undefined;
    checkpoint: Checkpoint;
    rpgPath: string;
    model: string;
  },
): Promise<PublishedPullRequest[]> {
  const pushed = await pushStack(run.dir, run.plan, run.rpgName, run.stack, run.remoteHeads, run.auth);
  await pushRunRecord(
    run.dir,
    run.runId,
    run.plan.subgraphs.map((s) => s.id),
    [runBranch(run.rpgName)],
    run.auth,
  );
  return publishStack(inputs, context, { plan: run.plan, checkpoint: run.checkpoint, rpgPath: run.rpgPath, model: run.model }, pushed);
}
