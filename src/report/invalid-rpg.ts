import { formatProblemLine } from "../errors.js";
import type { RpgIssue } from "../rpg/issues.js";
import { code } from "./markdown.js";

/**
 * The list of an invalid RPG's problems, one `CODE node-id field: message (file:line:column)` line each,
 * warnings included: what the Action writes to the job summary and the issue or pull request, and the App
 * on an issue whose graph it refused. `subject` is the Markdown the heading names; `file` the name the
 * lines give the text; `next`, a closing paragraph saying what to do.
 */
export function renderInvalidRpg(issues: readonly RpgIssue[], subject: string, file: string, next?: string): string {
  const errors = issues.filter((i) => i.severity === "error");
  const lines = issues.map((i) => `- ${code(formatProblemLine(i.code, i.message, { ...i.at, file }))}`);
  const body = [`### rpg-forge: ${subject} is invalid`, "", `${errors.length} problem(s); nothing was generated.`, "", ...lines];
  if (next !== undefined) body.push("", next);
  return body.join("\n");
}
