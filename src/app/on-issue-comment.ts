import type { Context } from "probot";

import { hasAccess, ignoredComment, refuse } from "./access.js";
import { answer, answerStatus } from "./answers.js";
import { parseCommand } from "./command.js";
import { configForRequest } from "./config.js";
import { dispatchRun, reportDispatchFailure } from "./dispatch.js";
import { renderHelp } from "./replies.js";
import { commentTarget } from "./target.js";

/** `/rpg <command>` on the first line of a comment on an issue or an rpg-forge pull request. */
export async function onIssueComment(context: Context<"issue_comment.created">): Promise<void> {
  const { comment, sender, repository } = context.payload;
  const ignored = ignoredComment(comment, sender);
  if (ignored !== undefined) return context.log.debug(`comment ${comment.id} ignored: ${ignored}`);
  const config = await configForRequest(
    context,
    context.payload.issue,
    (defaults) => parseCommand(comment.body, defaults.command) !== undefined,
  );
  if (!config) return;
  const command = parseCommand(comment.body, config.command);
  if (command === undefined) return;
  const target = await commentTarget(context);
  if ("ignored" in target) return context.log.info(`${config.command} ${command.name} ignored: ${target.ignored}`);
  if (!(await hasAccess(context, sender.login, config.permission))) return refuse(context, target, sender.login, config.permission);

  const repo = context.repo();
  await context.octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: comment.id, content: "eyes" });
  switch (command.name) {
    case "help":
      return answer(context.octokit, repo, target, comment.id, renderHelp(config.command, config.permission, command.problem));
    case "status":
      return answerStatus(context.octokit, repo, target, comment.id, config.command);
    case "retry":
    case "revise": {
      const to = { ...repo, defaultBranch: repository.default_branch };
      const nodes = command.nodes.length > 0 ? command.nodes.join(" ") : undefined;
      const dispatched = await dispatchRun(context.octokit, to, config, { mode: command.name, nodes, issue: String(target.number) });
      if (!dispatched.ok) return reportDispatchFailure(context.octokit, to, config, target, `comment-${comment.id}`, dispatched);
      await context.octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: comment.id, content: "rocket" });
    }
  }
}
