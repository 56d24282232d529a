import type { Context } from "probot";

import { isOwnBranch } from "../record/branch-names.js";

import { loadAppConfig } from "./config.js";
import { dispatchRun } from "./dispatch.js";
import { workflowStartsOn } from "./workflow-triggers.js";

/**
 * A push to the default branch that changes a watched graph (`rpg` in the config) starts a
 * generate run for it, unless the workflow runs on that push by itself (the template does) or
 * the config says `push: nothing`. The exported copy rpg-forge writes (`docs/rpg.json`) is
 * never a new graph: merging its pull requests must not start another run.
 */
export async function onPush(context: Context<"push">): Promise<void> {
  const { ref, repository, commits } = context.payload;
  const defaultBranch = repository.default_branch ?? "main";
  if (ref !== `refs/heads/${defaultBranch}` || isOwnBranch(ref)) return;
  const changed = new Set(commits.flatMap((c) => [...(c.added ?? []), ...(c.modified ?? [])]));
  if (changed.size === 0) return;
  const config = await loadAppConfig(context);
  const graphs = config.rpg.filter((path) => changed.has(path) && !/(^|\/)docs\/rpg\.json$/.test(path));
  if (graphs.length === 0 || config.push === "nothing") return;
  const to = { ...context.repo(), defaultBranch };
  if (await workflowStartsOn(context.octokit, to, config, "push"))
    return context.log.debug(`push to ${defaultBranch}: ${config.workflow} runs on it by itself`);
  for (const graph of graphs) {
    const dispatched = await dispatchRun(context.octokit, to, { ...config, rpg: [graph] }, { mode: "generate" });
    if (!dispatched.ok)
      context.log.warn(`push to ${defaultBranch}: the dispatch of ${graph} was refused (${dispatched.status}): ${dispatched.message}`);
  }
}
