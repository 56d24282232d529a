import * as core from "@actions/core";
import type { Checkpoint } from "../engine/checkpoint.js";
import { publishSubgraphs, type PublishedPullRequest } from "../github/publish.js";
import { createOctokit } from "../github/repository.js";
import type { Plan } from "../plan/plan.js";
import { baseBranchOf, workflowFile, type ActionContext } from "./context.js";
import type { ActionInputs } from "./inputs.js";
import type { PushedStack } from "./push-stack.js";

/** A word for a POSIX shell: the retry command is copied into terminals, and node ids are free text. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9._/:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One PR per level of the pushed stack, each against the level below, with the report and failed-node comments. */
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
  return publishSubgraphs({
    octokit,
    repository: context.repository,
    ...run,
    baseBranch: await baseBranchOf(inputs, context, octokit),
    branches: pushed.branches,
    retryCommand: (nodeId) =>
      `gh workflow run ${shellWord(workflowFile(context))} -f mode=retry -f rpg-path=${shellWord(run.rpgPath)} -f nodes=${shellWord(nodeId)}`,
    stack: pushed.stack,
    held: pushed.held,
  });
}
