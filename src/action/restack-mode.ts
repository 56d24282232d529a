import * as core from "@actions/core";
import { parseCheckpoint } from "../engine/checkpoint.js";
import { rpgNameOf, subgraphBranch } from "../engine/history.js";
import { fetchSubgraphBranches } from "../engine/matrix.js";
import { CHECKPOINT_PATH } from "../engine/output-paths.js";
import { restackBranches } from "../engine/pr-stack.js";
import { publishSubgraphs, type PublishedPullRequest } from "../github/publish.js";
import { createOctokit } from "../github/repository.js";
import { code } from "../report/markdown.js";
import { branchHeads, headOf, readFileAt } from "../workspace/git.js";
import type { RemoteAuth } from "../workspace/remote.js";
import { useBotIdentity } from "./bot-identity.js";
import { baseBranchOf, workflowFile, type ActionContext, type RpgAtHand } from "./context.js";
import type { ActionInputs } from "./inputs.js";
import { pushStack } from "./push-stack.js";
import { pullRequestTable } from "./summaries.js";
import { shellWord } from "./generate-mode.js";

/**
 * Mode restack: after some of the PRs were merged (with any merge method), the rest are
 * rebuilt on the base branch and retargeted to it, so each diff is again only its own.
 * It calls no model and runs no test: the levels keep their files, only their parents move.
 */
export async function runRestack(inputs: ActionInputs, context: ActionContext, at: RpgAtHand): Promise<void> {
  const { plan, rpgPath } = at;
  const dir = context.workspace;
  const token = inputs.githubToken;
  const auth: RemoteAuth | undefined = token ? { serverUrl: context.serverUrl, token } : undefined;
  const rpgName = rpgNameOf(at.rpg, at.rpgFile);
  useBotIdentity();
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

  let prs: PublishedPullRequest[] = [];
  if (token) {
    // The top of the stack holds the whole state: its checkpoint renders every PR as the run left it.
    const branch = subgraphBranch(rpgName, top);
    const text = await readFileAt(dir, branch, CHECKPOINT_PATH);
    if (text === undefined) throw new Error(`${branch} holds no ${CHECKPOINT_PATH}: it was not made by rpg-forge`);
    const exported = JSON.parse((await readFileAt(dir, branch, "docs/rpg.json")) ?? "{}") as {
      metadata?: { generation?: { model?: string } };
    };
    const octokit = createOctokit(token, context.apiUrl);
    prs = await publishSubgraphs({
      octokit,
      repository: context.repository,
      plan,
      checkpoint: parseCheckpoint(text, `${branch}:${CHECKPOINT_PATH}`),
      rpgPath,
      model: exported.metadata?.generation?.model ?? (inputs.model || "unknown"),
      baseBranch: await baseBranchOf(inputs, context, octokit),
      branches: pushed.branches,
      retryCommand: (nodeId) =>
        `gh workflow run ${shellWord(workflowFile(context))} -f mode=retry -f rpg-path=${shellWord(rpgPath)} -f nodes=${shellWord(nodeId)}`,
      stack: pushed.stack,
      held: pushed.held,
    });
  }
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
