import type { Context } from "probot";

import { parseCheckRunState, RETRY_FAILED_ACTION } from "../report/check-run.js";
import { hasAccess, refuse } from "./access.js";
import { configForRequest } from "./config.js";
import { dispatchRun, reportDispatchFailure } from "./dispatch.js";
import type { Target } from "./target.js";

/**
 * "Retry failed" on an rpg-forge check run: retry that subgraph's failed nodes, reporting to its
 * pull request. The check run says which nodes (the Action wrote them into it, decision 0014);
 * only our App can write our check runs, so that is trusted as our own. A button on another
 * App's check run, even one of the same name, is not ours to answer.
 */
export async function onCheckRunAction(context: Context<"check_run.requested_action">): Promise<void> {
  const { check_run: run, requested_action: action, sender, repository } = context.payload;
  if (action?.identifier !== RETRY_FAILED_ACTION) return;
  if (sender.type === "Bot") return context.log.debug(`${RETRY_FAILED_ACTION} on check run ${run.id} ignored: the sender is a bot`);
  if (String(run.app?.id) !== String(await ownAppId(context)))
    return context.log.debug(`${RETRY_FAILED_ACTION} on check run ${run.id} ignored: the check run is another App's`);
  const state = parseCheckRunState(run.output.text);
  if (!state) return context.log.warn(`${RETRY_FAILED_ACTION} on check run ${run.id} ignored: it carries no rpg-forge state`);

  const target: Target = { kind: "pull request", number: state.pr };
  const config = await configForRequest(context, target, () => true);
  if (!config) return;
  if (!(await hasAccess(context, sender.login, config.permission))) return refuse(context, target, sender.login, config.permission);
  const to = { ...context.repo(), defaultBranch: repository.default_branch };
  // The graph the check run is of, when the config still watches it; else the config's first, as elsewhere.
  const graph = config.rpg.includes(state.rpg) ? { ...config, rpg: [state.rpg] } : config;
  // No list (it did not fit the check run): every failed node of the graph.
  const nodes = state.failed && state.failed.length > 0 ? state.failed.join(" ") : undefined;
  const dispatched = await dispatchRun(context.octokit, to, graph, { mode: "retry", nodes, issue: String(state.pr) });
  if (!dispatched.ok) await reportDispatchFailure(context.octokit, to, graph, target, `check-run-${run.id}`, dispatched);
}

/**
 * This App's id. Probot's installation Octokit authenticates with @octokit/auth-app, which
 * signs the App's JWT locally (no request) and names the App it signed for.
 */
async function ownAppId(context: Context): Promise<number | string | undefined> {
  const auth = (await context.octokit.auth({ type: "app" })) as { appId?: number | string };
  return auth.appId;
}
