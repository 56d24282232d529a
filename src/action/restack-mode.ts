import * as core from "@actions/core";
import { subgraphBranch } from "../record/branch-names.js";
import { fetchSubgraphBranches } from "../engine/matrix.js";
import { CHECKPOINT_PATH } from "../engine/output-paths.js";
import { restackBranches, stateAt } from "../engine/pr-stack.js";
import { code } from "../report/markdown.js";
import { branchHeads, headOf } from "../workspace/git.js";
import { runnerCheckout } from "./runner-checkout.js";
import type { ActionContext, RpgAtHand } from "./context.js";
import type { ActionInputs } from "./inputs.js";
import { pushStack } from "./push-stack.js";
import { pullRequestTable } from "./summaries.js";
import { publishStack } from "./publish-stack.js";

/**
 * Mode restack: after some of the PRs were merged (with any merge method), the rest are
 * rebuilt on the base branch and retargeted to it, so each diff is again only its own.
 * It calls no model and runs no test: the levels keep their files, only their parents move.
 */
export async function runRestack(inputs: ActionInputs, context: ActionContext, at: RpgAtHand): Promise<void> {
  const { plan, rpgPath } = at;
  const { dir, auth, rpgName } = runnerCheckout(inputs, context, at);
  await fetchSubgraphBranches(dir, rpgName, auth);
  const remoteHeads = await branchHeads(dir, "refs/heads/");
  const restacked = await restackBranches({ dir, rpg: at.rpg, plan, rpgName, base: await headOf(dir) });
  const pushed = await pushStack(dir, plan, rpgName, restacked.stack, remoteHeads, auth);
  const top = pushed.stack.at(-1);
  if (restacked.merged.length > 0) core.info(`merged into the base already: ${restacked.merged.join(", ")}`);
  if (top === undefined) {
    core.info("no pull request of this RPG is left to restack");
    await core.summary.addRaw(`Every pull request of ${code(rpgPath)} is merged; nothing to restack.\n`).write();
    return;
  }

  // The top of the stack holds the whole state: its checkpoint renders every PR as the run left it.
  const branch = subgraphBranch(rpgName, top);
  const state = await stateAt(dir, branch);
  if (!state) throw new Error(`${branch} holds no ${CHECKPOINT_PATH}: it was not made by rpg-forge`);
  const model = state.model ?? (inputs.model || "unknown");
  const prs = await publishStack(inputs, context, { plan, checkpoint: state.checkpoint, rpgPath, model }, pushed);
  const open = prs.filter((pr) => !pr.closed);
  core.setOutput(
    "pull-requests",
    JSON.stringify(Object.fromEntries(open.map((pr) => [pr.subgraphId, { number: pr.number, url: pr.url }]))),
  );
  const moved = restacked.stack.levels.filter((l) => l.change !== "unchanged").map((l) => code(l.branch));
  await core.summary
    .addRaw(
      `Restacked ${code(rpgPath)}: ${moved.length > 0 ? `moved ${moved.join(", ")} onto the base` : "every branch was in place"}` +
        `${restacked.merged.length > 0 ? `; merged already: ${restacked.merged.map(code).join(", ")}` : ""}.\n\n`,
    )
    .addRaw(pullRequestTable(prs, plan))
    .write();
}
