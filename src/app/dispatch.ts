import type { Context } from "probot";

import { dispatchInputs, type DispatchInputs } from "../config/dispatch-inputs.js";
import { commentMarker, upsertComment, type ListedComment } from "../github/comments.js";
import type { RepositoryRef } from "../github/repository.js";
import { rpgPathOf, type AppConfig } from "./config.js";
import { dispatchWorkflow, type Dispatched } from "../github/workflow-dispatch.js";
import { renderDispatchFailure } from "./replies.js";
import type { Target } from "./target.js";

/** What a dispatch needs to know of the repository. */
export interface DispatchTo extends RepositoryRef {
  /** The workflow runs from the default branch, where its file and `.github/rpg-forge.yml` are the reviewed ones. */
  defaultBranch: string;
}

export type { Dispatched };

/**
 * Starts the repository's rpg-forge workflow (`workflow` in the config) with these inputs and the
 * configured RPG path, on the default branch or on `ref` (a branch made from it).
 */
export function dispatchRun(
  octokit: Context["octokit"],
  to: DispatchTo,
  config: AppConfig,
  inputs: DispatchInputs,
  ref: string = to.defaultBranch,
): Promise<Dispatched> {
  return dispatchWorkflow(octokit, {
    owner: to.owner,
    repo: to.repo,
    workflow: config.workflow,
    ref,
    inputs: dispatchInputs({ "rpg-path": rpgPathOf(config), ...inputs }),
  });
}

/** Says on the issue or pull request why its request started nothing; `request` keys the comment, so a redelivery edits it. */
export async function reportDispatchFailure(
  octokit: Context["octokit"],
  to: DispatchTo,
  config: AppConfig,
  target: Target,
  request: string,
  failure: { status: number; message: string },
  ours?: readonly ListedComment[],
): Promise<void> {
  const body = renderDispatchFailure(config.workflow, to.defaultBranch, failure.status, failure.message);
  await upsertComment(
    octokit,
    { owner: to.owner, repo: to.repo, issueNumber: target.number },
    commentMarker("dispatch-failed", request),
    body,
    ours,
  );
}
