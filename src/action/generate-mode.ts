import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as core from "@actions/core";
import { mergeCheckpoints } from "../engine/checkpoint-merge.js";
import { parseCheckpoint, writeCheckpoint, type Checkpoint } from "../engine/checkpoint.js";
import { CHECKPOINT_PATH, generate } from "../engine/generate.js";
import { rpgNameOf, runBranch, subgraphBranch, subgraphBranchPrefix } from "../engine/history.js";
import { rpgHash } from "../engine/run-id.js";
import { BODY_LIMIT, commentMarker, upsertComment } from "../github/comments.js";
import { publishSubgraphs, type PublishedPullRequest } from "../github/publish.js";
import { createOctokit } from "../github/repository.js";
import { selectProvider } from "../llm/select.js";
import type { Plan } from "../plan/plan.js";
import { progressPrinter } from "../report/progress.js";
import { fitToLimit } from "../report/pull-request.js";
import { checkoutBranch, checkoutCombined, readFileAt, refsUnder } from "../workspace/git.js";
import { fetchRefs, pushRefs, remoteHasBranch, type RemoteAuth } from "../workspace/remote.js";
import { defaultBranchFromEvent, workflowFile, type ActionContext, type RpgAtHand } from "./context.js";
import type { ActionInputs } from "./inputs.js";
import { pullRequestTable } from "./summaries.js";

/** Who commits in the runner when the workflow set no identity: GitHub's own bot, as actions do. */
const BOT = { name: "github-actions[bot]", email: "41898282+github-actions[bot]@users.noreply.github.com" };

/**
 * Modes generate, retry and revise: prepare the checkout, run the engine, push, and
 * publish. With `subgraphs` (matrix mode), only those subgraphs are generated, on the
 * code their dependencies' branches hold, and only their branches and PRs are written.
 */
export async function runGeneration(inputs: ActionInputs, context: ActionContext, at: RpgAtHand): Promise<void> {
  const { plan, rpgPath } = at;
  const dir = context.workspace;
  const token = inputs.githubToken;
  const auth: RemoteAuth | undefined = token ? { serverUrl: context.serverUrl, token } : undefined;
  const rpgName = rpgNameOf(at.rpg, at.rpgFile);
  const runBranchName = runBranch(rpgName);
  const matrix = inputs.subgraphs.length > 0 ? checkSubgraphs(plan, inputs.subgraphs) : undefined;

  // Reruns build on the branches earlier runs pushed, so each PR's branch moves forward.
  const branchGlob = `refs/heads/${subgraphBranchPrefix(rpgName)}*`;
  await fetchRefs(dir, "origin", [`+${branchGlob}:${branchGlob}`], auth);
  if (matrix) {
    await combineDependencies(dir, plan, rpgName, runBranchName, matrix);
  } else if (inputs.mode !== "generate") {
    if (!(await remoteHasBranch(dir, "origin", runBranchName, auth)))
      throw new Error(`mode ${inputs.mode} continues an earlier run, but origin has no branch ${runBranchName}; run mode generate first`);
    await fetchRefs(dir, "origin", [`+refs/heads/${runBranchName}:refs/heads/${runBranchName}`], auth);
    await checkoutBranch(dir, runBranchName);
  }
  process.env.GIT_AUTHOR_NAME ??= BOT.name;
  process.env.GIT_AUTHOR_EMAIL ??= BOT.email;
  process.env.GIT_COMMITTER_NAME ??= BOT.name;
  process.env.GIT_COMMITTER_EMAIL ??= BOT.email;

  const { provider, model } = await selectProvider({ replay: inputs.replay || undefined, model: inputs.model || undefined }, process.env);
  const started = Date.now();
  const result = await generate({
    rpg: at.rpg,
    rpgPath,
    rpgSha256: rpgHash(at.text),
    outDir: dir,
    provider,
    model,
    // A checkpoint on the branch (or merged into the base) is continued: passed nodes
    // whose specification is unchanged are kept; a missing one starts afresh.
    mode: "resume",
    only: inputs.mode === "generate" || inputs.nodes.length === 0 ? undefined : inputs.nodes,
    subgraphs: matrix,
    maxIterations: inputs.maxIterations,
    git: true,
    branchPerSubgraph: true,
    onEvent: progressPrinter((line) => void process.stdout.write(line)),
    onNotice: (notice) => core.warning(notice),
  });

  const checkpoint = parseCheckpoint(await readFile(result.checkpointPath, "utf8"), result.checkpointPath);
  const mine = (id: string): boolean => !matrix || matrix.includes(id);
  // A subgraph with no passed node has no branch worth a PR, even one an earlier run pushed.
  const branches = new Map<string, string>();
  const local = new Set(await refsUnder(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`));
  for (const subgraph of plan.subgraphs) {
    const branch = subgraphBranch(rpgName, subgraph.id);
    if (local.has(branch) && subgraph.nodes.some((id) => checkpoint.nodes[id]?.status === "passed")) branches.set(subgraph.id, branch);
  }
  const tags = await refsUnder(dir, `refs/tags/rpg/${result.runId}/`);
  await pushRefs(
    dir,
    "origin",
    [
      ...[...branches].filter(([id]) => mine(id)).map(([, b]) => `refs/heads/${b}:refs/heads/${b}`),
      ...tags.map((t) => `refs/tags/${t}:refs/tags/${t}`),
      // In matrix mode each job holds a part of the run; the report job puts the parts together.
      ...(matrix ? [] : [`+refs/heads/${runBranchName}:refs/heads/${runBranchName}`]),
    ],
    auth,
  );

  let prs: PublishedPullRequest[] = [];
  if (token) {
    const octokit = createOctokit(token, context.apiUrl);
    prs = await publishSubgraphs({
      octokit,
      repository: context.repository,
      plan,
      checkpoint,
      rpgPath,
      runId: result.runId,
      model,
      elapsedMs: Date.now() - started,
      baseBranch:
        inputs.baseBranch ||
        defaultBranchFromEvent(context) ||
        (await octokit.rest.repos.get({ ...context.repository })).data.default_branch,
      branches,
      retryCommand: (nodeId) => `gh workflow run ${workflowFile(context)} -f mode=retry -f rpg-path=${rpgPath} -f nodes=${nodeId}`,
      ...(matrix ? { only: new Set(matrix) } : {}),
    });
  } else {
    core.warning("no github-token: branches were pushed, but no pull request was opened");
  }

  const report = await readFile(result.reportPath, "utf8");
  await finish(inputs, context, {
    plan,
    rpgPath,
    checkpoint,
    prs,
    report,
    runId: result.runId,
    branch: matrix ? undefined : runBranchName,
  });
}

/** Outputs, the job summary and the report on the `issue` input: the same for a run and for matrix mode's report job. */
export async function finish(
  inputs: ActionInputs,
  context: ActionContext,
  run: {
    plan: Plan;
    rpgPath: string;
    checkpoint: Checkpoint;
    prs: PublishedPullRequest[];
    report: string;
    runId: string;
    branch: string | undefined;
  },
): Promise<void> {
  const leaves = Object.values(run.checkpoint.nodes).filter((e) => e.node_type !== "composite");
  const count = (status: string): number => leaves.filter((e) => e.status === status).length;
  const [passed, failed, skipped] = [count("passed"), count("failed"), count("skipped")];
  if (inputs.githubToken && inputs.issue !== undefined) {
    const marker = commentMarker("run-report", run.rpgPath);
    const heading = `### rpg-forge: ${passed} of ${leaves.length} nodes pass (\`${run.rpgPath}\`, run ${run.runId})\n\n`;
    await upsertComment(
      createOctokit(inputs.githubToken, context.apiUrl),
      { ...context.repository, issueNumber: inputs.issue },
      marker,
      fitToLimit(heading + pullRequestTable(run.prs, run.plan) + run.report, BODY_LIMIT - marker.length - 1),
    );
  }
  core.setOutput(
    "pull-requests",
    JSON.stringify(Object.fromEntries(run.prs.map((pr) => [pr.subgraphId, { number: pr.number, url: pr.url }]))),
  );
  core.setOutput("passed", passed);
  core.setOutput("failed", failed);
  core.setOutput("skipped", skipped);
  if (run.branch) core.setOutput("branch", run.branch);
  await core.summary.addRaw(pullRequestTable(run.prs, run.plan)).addRaw(run.report).write();
  core.info(`${passed} passed, ${failed} failed, ${skipped} skipped of ${leaves.length} nodes; ${run.prs.length} pull request(s)`);
}

function checkSubgraphs(plan: Plan, subgraphs: readonly string[]): string[] {
  const unknown = subgraphs.filter((id) => !plan.subgraphs.some((s) => s.id === id));
  if (unknown.length > 0) throw new Error(`input subgraphs names ${unknown.join(", ")}, not a subgraph of the RPG`);
  return [...subgraphs];
}

/**
 * Matrix mode on a fresh runner: the code of the subgraphs these need is on their
 * branches (pushed by earlier waves). The work tree becomes those branches laid over
 * each other, with their checkpoints merged; a dependency without a branch (none of
 * its nodes passed) leaves the nodes that need it to be skipped.
 */
async function combineDependencies(
  dir: string,
  plan: Plan,
  rpgName: string,
  runBranchName: string,
  subgraphs: readonly string[],
): Promise<void> {
  const needed = [...new Set(plan.subgraphs.filter((s) => subgraphs.includes(s.id)).flatMap((s) => s.dependsOn))].filter(
    (id) => !subgraphs.includes(id),
  );
  const present = new Set(await refsUnder(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`));
  const sources = needed.map((id) => subgraphBranch(rpgName, id)).filter((b) => present.has(b));
  for (const id of needed.filter((id) => !present.has(subgraphBranch(rpgName, id))))
    core.warning(`subgraph ${id} has no branch (no node of it passed); the nodes that need it will be skipped`);
  if (sources.length === 0) return;
  await checkoutCombined(dir, runBranchName, sources);
  const checkpoints: Checkpoint[] = [];
  for (const branch of sources) {
    const text = await readFileAt(dir, branch, CHECKPOINT_PATH);
    if (text !== undefined) checkpoints.push(parseCheckpoint(text, `${branch}:${CHECKPOINT_PATH}`));
  }
  const merged = mergeCheckpoints(checkpoints);
  if (merged) await writeCheckpoint(join(dir, CHECKPOINT_PATH), merged);
}
