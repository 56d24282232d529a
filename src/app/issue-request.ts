import type { Context } from "probot";

import { commentMarker, findCommentsByPrefix, upsertComment } from "../github/comments.js";
import { commitFileToBranch } from "../github/commit-file.js";
import { renderInvalidRpg } from "../report/invalid-rpg.js";
import { parseRpgText } from "../rpg/load.js";
import { rpgPathOf, type AppConfig } from "./config.js";
import type { DispatchTo } from "./dispatch.js";
import { issueBranch } from "../record/branch-names.js";
import { issuePathProblem, issueRpg } from "./issue-rpg.js";
import { renderRpgAccepted, renderRpgCommitRefused, renderRpgPathRefused } from "./replies.js";

/** What to dispatch for an issue: the graph's path, on which ref. */
export interface IssueRun {
  path: string;
  ref: string;
}

/**
 * The graph an issue labeled for generation asks for, ready to dispatch: a graph pasted into the body
 * is checked like any RPG file and committed as `path` onto `rpg-forge/issue-<n>` (made from the default
 * branch's head); a named or the configured path runs on the default branch as it is. A problem (a
 * refused path, an invalid graph, a refused commit) is said in one comment on the issue, edited on
 * every later request, and undefined comes back: nothing is to be started.
 */
export async function runForIssue(
  context: Context<"issues.labeled">,
  config: AppConfig,
  to: DispatchTo,
  issue: { number: number; body?: string | null },
): Promise<IssueRun | undefined> {
  const octokit = context.octokit;
  const where = { owner: to.owner, repo: to.repo, issueNumber: issue.number };
  const marker = commentMarker("invalid-rpg", "issue");
  const say = async (body: string): Promise<undefined> => void (await upsertComment(octokit, where, marker, body));

  const asked = issueRpg(issue.body ?? "");
  const path = asked.path ?? rpgPathOf(config);
  const pathProblem = asked.path === undefined ? undefined : issuePathProblem(asked.path);
  if (pathProblem !== undefined) return say(renderRpgPathRefused(asked.path!, pathProblem));
  let ref = to.defaultBranch;
  if (asked.kind === "text") {
    const source = `issue #${issue.number}`;
    // Blank lines in place of the text before the block: lines named, in messages too, are the lines of the issue's text.
    const loaded = parseRpgText(`${"\n".repeat(asked.line - 1)}${asked.text}`, source);
    if (!loaded.ok) {
      const next = "Nothing was started. Correct the graph in the issue, then remove the label and add it again.";
      return say(renderInvalidRpg(loaded.issues, "the RPG in this issue", source, next));
    }
    ref = issueBranch(issue.number);
    try {
      await commitFileToBranch(octokit, to, {
        branch: ref,
        from: to.defaultBranch,
        path,
        content: asked.text.endsWith("\n") ? asked.text : `${asked.text}\n`,
        message: `rpg-forge: ${path} from #${issue.number}`,
      });
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (typeof status !== "number" || status < 400 || status >= 500 || status === 429) throw error;
      return say(renderRpgCommitRefused(path, ref, status, (error as Error).message));
    }
  }
  // An earlier refusal must not stand beside a run: it is edited to say the issue's graph was taken.
  const refused = await findCommentsByPrefix(octokit, where, marker);
  if (refused.length > 0) await upsertComment(octokit, where, marker, renderRpgAccepted(path, ref), refused);
  return { path, ref };
}
