import * as core from "@actions/core";
import { rpgNameOf, subgraphBranchPrefix } from "../engine/history.js";
import { fetchSubgraphBranches, readSubgraphBranches } from "../engine/matrix.js";
import { summarize } from "../engine/summary.js";
import type { PublishedPullRequest } from "../github/publish.js";
import { findPullRequest } from "../github/pull-requests.js";
import { createOctokit } from "../github/repository.js";
import { renderGenerationReport } from "../report/generation-report.js";
import type { ActionContext, RpgAtHand } from "./context.js";
import { finish } from "./finish.js";
import type { ActionInputs } from "./inputs.js";

/**
 * Mode report, the last job of matrix mode: puts together what the wave jobs pushed
 * (each subgraph's branch carries its checkpoint) into one report, with the PRs the
 * wave jobs opened, for the job summary, the outputs and the `issue` input. It calls
 * no model and writes no branch.
 */
export async function runReport(inputs: ActionInputs, context: ActionContext, at: RpgAtHand): Promise<void> {
  const dir = context.workspace;
  const token = inputs.githubToken;
  const rpgName = rpgNameOf(at.rpg, at.rpgFile);
  await fetchSubgraphBranches(dir, rpgName, token ? { serverUrl: context.serverUrl, token } : undefined);
  const { branches, checkpoint } = await readSubgraphBranches(dir, at.plan, rpgName);
  if (!checkpoint)
    throw new Error(`no subgraph of ${at.rpgPath} has a branch (${subgraphBranchPrefix(rpgName)}...): there is nothing to report`);

  const prs: PublishedPullRequest[] = [];
  if (token) {
    const octokit = createOctokit(token, context.apiUrl);
    for (const [subgraphId, branch] of branches) {
      const pr = await findPullRequest(octokit, context.repository, branch);
      if (pr) prs.push({ subgraphId, number: pr.number, url: pr.html_url, created: false, closed: false, base: pr.base.ref });
    }
  }
  const elapsedMs = Object.values(checkpoint.nodes).reduce((sum, e) => sum + (e.duration_ms ?? 0), 0);
  const report = renderGenerationReport({
    plan: at.plan,
    checkpoint,
    summary: summarize(checkpoint),
    rpgPath: at.rpgPath,
    runId: checkpoint.run_id,
    model: inputs.model || "as the wave jobs were configured",
    generatedAt: new Date(),
    elapsedMs,
  });
  if (branches.size < at.plan.subgraphs.length)
    core.warning(
      `${at.plan.subgraphs.length - branches.size} subgraph(s) have no branch: none of their nodes passed, or their job did not run`,
    );
  await finish(inputs, context, {
    plan: at.plan,
    rpgPath: at.rpgPath,
    checkpoint,
    prs,
    report,
    runId: checkpoint.run_id,
    branch: undefined,
    whole: true,
  });
}
