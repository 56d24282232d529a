import type { Context } from "probot";

import { dispatchInputs, type DispatchInputs } from "../config/dispatch-inputs.js";
import { commentMarker, upsertComment } from "../github/comments.js";
import type { RepositoryRef } from "../github/repository.js";
import { rpgPathOf, type AppConfig } from "./config.js";
import { githubClient } from "./github-client.js";
import { renderDispatchFailure } from "./replies.js";
import type { Target } from "./target.js";

/** What a dispatch needs to know of the repository. */
export interface DispatchTo extends RepositoryRef {
  /** The workflow runs from the default branch, where its file and `.github/rpg-forge.yml` are the reviewed ones. */
  defaultBranch: string;
}

export type Dispatched = { ok: true } | { ok: false; status: number; message: string };

/**
 * Starts the repository's rpg-forge workflow (`workflow` in the config) with these inputs and the
 * configured RPG path, on the default branch or on `ref` (a branch made from it). A refusal by GitHub
 * (4xx: no such workflow, no workflow_dispatch trigger, an input it does not declare) is a result the
 * caller reports; anything else is thrown, so that the delivery fails and may be redelivered.
 */
// TODO(issue 15): move to src/github/dispatch.ts (STYLE.md §2: github/ makes every GitHub write), outside this slice's folders.
export async function dispatchRun(
  octokit: Context["octokit"],
  to: DispatchTo,
  config: AppConfig,
  inputs: DispatchInputs,
  ref: string = to.defaultBranch,
): Promise<Dispatched> {
  try {
    await octokit.rest.actions.createWorkflowDispatch({
      owner: to.owner,
      repo: to.repo,
      workflow_id: config.workflow,
      ref,
      inputs: dispatchInputs({ "rpg-path": rpgPathOf(config), ...inputs }),
    });
    return { ok: true };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && status >= 400 && status < 500 && status !== 429)
      return { ok: false, status, message: (error as Error).message };
    throw error;
  }
}

/** Says on the issue or pull request why its request started nothing; `request` keys the comment, so a redelivery edits it. */
export async function reportDispatchFailure(
  octokit: Context["octokit"],
  to: DispatchTo,
  config: AppConfig,
  target: Target,
  request: string,
  failure: { status: number; message: string },
): Promise<void> {
  const body = renderDispatchFailure(config.workflow, to.defaultBranch, failure.status, failure.message);
  await upsertComment(
    githubClient(octokit),
    { owner: to.owner, repo: to.repo, issueNumber: target.number },
    commentMarker("dispatch-failed", request),
    body,
  );
}
