import type { Context } from "probot";

import type { DispatchInputs } from "../config/dispatch-inputs.js";
import { MARKER_PREFIX, commentMarker, findCommentsByPrefix, upsertComment } from "../github/comments.js";
import { waitingRunOf } from "../github/workflow-dispatch.js";
import type { AppConfig } from "./config.js";
import { dispatchRun, reportDispatchFailure, type DispatchTo } from "./dispatch.js";
import { renderRunWaiting, renderStarted } from "./replies.js";
import type { Target } from "./target.js";

/** One request a person made: what started it (`comment-<id>`, `review-<id>`), and how the answer names it. */
export interface PersonRequest {
  key: string;
  /** "your review", "`/rpg revise`": how the answer refers to the request. */
  described: string;
}

/**
 * Dispatches a request's run once, however often its webhook comes: the answer that says the run
 * started carries the request's marker, so a redelivery (after a restart, or to another replica,
 * which the in-memory delivery log does not see) finds it and starts nothing. The marker is
 * written after the dispatch: a crash between the two can start the run twice, never lose it.
 */
export async function dispatchOnce(
  context: Context,
  to: DispatchTo,
  config: AppConfig,
  target: Target,
  request: PersonRequest,
  inputs: DispatchInputs,
): Promise<"started" | "already" | "waiting" | "refused"> {
  const gh = context.octokit;
  const where = { owner: to.owner, repo: to.repo, issueNumber: target.number };
  const marker = commentMarker("request", request.key);
  // One listing serves the check and the answer.
  const ours = await findCommentsByPrefix(gh, where, MARKER_PREFIX);
  if (ours.some((c) => c.body?.startsWith(marker))) {
    context.log.info(`request ${request.key} was dispatched already: ignored`);
    return "already";
  }
  const waiting = await waitingRunOf(gh, { owner: to.owner, repo: to.repo, workflow: config.workflow, ref: to.defaultBranch });
  if (waiting !== undefined) {
    // Said under the request's marker: asking again, once the waiting run has started, is a new request.
    await upsertComment(gh, where, commentMarker("waiting", request.key), renderRunWaiting(request.described, waiting), ours);
    return "waiting";
  }
  const dispatched = await dispatchRun(context.octokit, to, config, inputs);
  if (!dispatched.ok) {
    await reportDispatchFailure(context.octokit, to, config, target, request.key, dispatched, ours);
    return "refused";
  }
  await upsertComment(gh, where, marker, renderStarted(inputs.mode ?? "generate", request.described, dispatched.runUrl), ours);
  return "started";
}
