import type { Context } from "probot";

import { hasAccess, refuse } from "./access.js";
import { configForRequest } from "./config.js";
import { dispatchRun, reportDispatchFailure } from "./dispatch.js";
import { runForIssue } from "./issue-request.js";
import type { Target } from "./target.js";

/**
 * The configured label (`generate`) on an issue: generate from the graph the issue pastes or names (or the
 * configured one), reporting to the issue; the pull requests link back to it (decision 0015).
 */
export async function onIssueLabeled(context: Context<"issues.labeled">): Promise<void> {
  const { issue, label, sender, repository } = context.payload;
  // Labels set by bots, rpg-forge's own included, must not start runs.
  if (sender.type === "Bot") return context.log.debug(`label on #${issue.number} ignored: the sender is a bot`);
  const config = await configForRequest(context, issue, (defaults) => label?.name === defaults.label);
  if (!config || label?.name !== config.label) return;
  const target: Target = { kind: "issue", number: issue.number };
  if (!(await hasAccess(context, sender.login, config.permission))) return refuse(context, target, sender.login, config.permission);

  const repo = context.repo();
  await context.octokit.rest.reactions.createForIssue({ ...repo, issue_number: issue.number, content: "eyes" });
  const to = { ...repo, defaultBranch: repository.default_branch };
  const run = await runForIssue(context, config, to, issue);
  if (!run) return;
  // On the issue's branch, the pull requests still go to the base branch, not to the branch the run is on.
  const base = run.ref === to.defaultBranch ? {} : { "base-branch": config["base-branch"] ?? to.defaultBranch };
  const inputs = { "rpg-path": run.path, mode: "generate" as const, issue: String(issue.number), ...base };
  const dispatched = await dispatchRun(context.octokit, to, config, inputs, run.ref);
  if (!dispatched.ok) await reportDispatchFailure(context.octokit, to, config, target, "label", dispatched);
}
