import type { Context } from "probot";

import { hasAccess, ignoredComment, refuse } from "./access.js";
import { answer, answerStatus } from "./answers.js";
import { parseCommand } from "./command.js";
import { configForRequest, rpgPathOf } from "./config.js";
import { renderHelp } from "./replies.js";
import { graphOfBranch } from "./graph-of-branch.js";
import { dispatchOnce } from "./request-once.js";
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
  const to = { ...repo, defaultBranch: repository.default_branch };
  // On a pull request, the graph of its branch; on an issue, the configured one.
  const graph = (): Promise<string> =>
    target.head === undefined ? Promise.resolve(rpgPathOf(config)) : graphOfBranch(context.octokit, to, config, target.head);
  switch (command.name) {
    case "help":
      return answer(context.octokit, repo, target, comment.id, renderHelp(config.command, config.permission, command.problem));
    case "status":
      return answerStatus(context.octokit, repo, target, comment.id, config.command, await graph());
    case "retry":
    case "revise": {
      const nodes = command.nodes.length > 0 ? command.nodes.join(" ") : undefined;
      const request = { key: `comment-${comment.id}`, described: `\`${config.command} ${command.name}\`` };
      // A revise's note is the rest of the comment: the run reads it through the API, never from an input.
      const inputs = {
        "rpg-path": await graph(),
        mode: command.name,
        nodes,
        issue: String(target.number),
        ...(command.name === "revise" ? { request: request.key } : {}),
      };
      const started = await dispatchOnce(context, to, config, target, request, inputs);
      if (started === "started")
        await context.octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: comment.id, content: "rocket" });
    }
  }
}
