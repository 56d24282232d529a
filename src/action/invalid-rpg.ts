import * as core from "@actions/core";
import { formatProblemLine } from "../errors.js";
import { BODY_LIMIT, commentMarker, upsertComment } from "../github/comments.js";
import { createOctokit } from "../github/repository.js";
import type { RpgIssue } from "../rpg/issues.js";
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

/** Each problem as an annotation on its line, the list in the summary and on the event's issue or PR, and a failed job. */
export async function reportInvalidRpg(issues: readonly RpgIssue[], rpgPath: string, token: string, context: ActionContext): Promise<void> {
  const errors = issues.filter((i) => i.severity === "error");
  for (const issue of issues) {
    (issue.severity === "error" ? core.error : core.warning)(`${issue.code}: ${issue.message}`, annotation(issue, rpgPath));
  }
  const lines = issues.map((i) => `- ${code(formatProblemLine(i.code, i.message, { ...i.at, file: rpgPath }))}`);
  const body = [`### rpg-forge: ${code(rpgPath)} is invalid`, "", `${errors.length} problem(s); nothing was generated.`, "", ...lines].join(
    "\n",
  );
  await core.summary.addRaw(body).write();
  const issueNumber = eventIssueNumber(context.event);
  if (issueNumber !== undefined && token) {
    const marker = commentMarker("invalid-rpg", rpgPath);
    await upsertComment(
      createOctokit(token, context.apiUrl),
      { ...context.repository, issueNumber },
      marker,
      body.slice(0, BODY_LIMIT - marker.length - 1),
    );
  }
  core.setFailed(`${rpgPath} is invalid: ${errors.length} problem(s); see the annotations`);
}
