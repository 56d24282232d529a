import * as core from "@actions/core";
import { commentMarker, upsertComment } from "../github/comments.js";
import { COMMENT_LIMIT } from "../report/fit-limit.js";
import { createOctokit } from "../github/repository.js";
import type { RpgIssue } from "../rpg/issues.js";
import { renderInvalidRpg } from "../report/invalid-rpg.js";
import { code } from "../report/markdown.js";
import { eventIssueNumber, type ActionContext } from "./context.js";

/** An annotation on the problem's line of the RPG file. */
export function annotation(issue: RpgIssue, rpgPath: string): core.AnnotationProperties {
  return {
    title: issue.code,
    file: rpgPath,
    ...(issue.at.line !== undefined ? { startLine: issue.at.line } : {}),
    ...(issue.at.column !== undefined ? { startColumn: issue.at.column } : {}),
  };
}

/**
 * Each problem as an annotation on its line, the list in the summary and on the issue of the `issue` input (a
 * dispatched run's event names none) or else the event's issue or PR, and a failed job.
 */
export async function reportInvalidRpg(
  issues: readonly RpgIssue[],
  rpgPath: string,
  token: string,
  context: ActionContext,
  issue?: number,
): Promise<void> {
  const errors = issues.filter((i) => i.severity === "error");
  for (const issue of issues) {
    (issue.severity === "error" ? core.error : core.warning)(`${issue.code}: ${issue.message}`, annotation(issue, rpgPath));
  }
  const body = renderInvalidRpg(issues, code(rpgPath), rpgPath);
  await core.summary.addRaw(body).write();
  const issueNumber = issue ?? eventIssueNumber(context.event);
  if (issueNumber !== undefined && token) {
    const marker = commentMarker("invalid-rpg", rpgPath);
    await upsertComment(
      createOctokit(token, context.apiUrl),
      { ...context.repository, issueNumber },
      marker,
      body.slice(0, COMMENT_LIMIT - marker.length - 1),
    );
  }
  core.setFailed(`${rpgPath} is invalid: ${errors.length} problem(s); see the annotations`);
}
