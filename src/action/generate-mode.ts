import { randomUUID } from "node:crypto";
import * as core from "@actions/core";
import { generate } from "../engine/generate.js";
import { rpgNameOf, runBranch, subgraphBranch, subgraphBranchPrefix, subgraphTag } from "../engine/history.js";
import { combineNeededBranches, fetchSubgraphBranches } from "../engine/matrix.js";
import { rpgHash } from "../engine/run-id.js";
import { publishSubgraphs, type PublishedPullRequest } from "../github/publish.js";
import { createOctokit } from "../github/repository.js";
import { selectProvider } from "../llm/select.js";
import type { Checkpoint } from "../engine/checkpoint.js";
import type { Plan } from "../plan/plan.js";
import { progressPrinter } from "../report/progress.js";
import { branchHeads, headOf, refsUnder, takeFiles } from "../workspace/git.js";
import { pushRefs, type RemoteAuth } from "../workspace/remote.js";
import { stackOwnedPaths, topOfStack } from "../engine/pr-stack.js";
import { pushStack } from "./push-stack.js";
import { useBotIdentity } from "./bot-identity.js";
import { baseBranchOf, workflowFile, type ActionContext, type RpgAtHand } from "./context.js";
import { finish } from "./finish.js";
import type { ActionInputs } from "./inputs.js";
import { readFile } from "node:fs/promises";

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
  useBotIdentity();

  // Reruns build on the branches earlier runs pushed; what origin had is the lease each push checks.
  await fetchSubgraphBranches(dir, rpgName, auth);
  const remoteHeads = await branchHeads(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`);
  // A subgraph branch that does not exist yet starts from the base the workflow checked out.
  const base = await headOf(dir);
  if (matrix) {
    const { missing } = await combineNeededBranches(dir, at.rpg, plan, rpgName, runBranchName, matrix);
    for (const id of missing) core.warning(`subgraph ${id} has no branch (no node of it passed); the nodes that need it will be skipped`);
  } else {
    // The open PRs hold the work so far: the files of the top of their stack are laid over
    // the base, so the run resumes from them (merged ones are in the base already).
    const top = await topOfStack(dir, plan, rpgName);
    if (top) await takeFiles(dir, top, await stackOwnedPaths(dir, base, at.rpg));
  }

  const { provider, model } = await selectProvider({ replay: inputs.replay || undefined, model: inputs.model || undefined }, process.env);
  const notices: string[] = [];
  // Node ids, test output and model text are not ours: while they are printed, the
  // runner must not take a line of theirs for a workflow command.
  const stop = randomUUID();
  process.stdout.write(`::stop-commands::${stop}\n`);
  let result;
  try {
    result = await generate({
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
      concurrency: inputs.concurrency,
      sandbox: inputs.sandbox,
      git: true,
      branchPerSubgraph: true,
      branchBase: base,
      onEvent: progressPrinter((line) => void process.stdout.write(line)),
      onNotice: (notice) => notices.push(notice),
    });
  } finally {
    process.stdout.write(`::${stop}::\n`);
    for (const notice of notices) core.warning(notice);
  }

  const { checkpoint } = result;
  const mine = (id: string): boolean => !matrix || matrix.includes(id);
  const ownTags = new Set(plan.subgraphs.filter((s) => mine(s.id)).map((s) => subgraphTag(result.runId, s.id)));
  const tags = (await refsUnder(dir, `refs/tags/rpg/${result.runId}/`)).filter((tag) => ownTags.has(tag));
  let branches: Map<string, string>;
  let stack: string[] | undefined;
  let held = new Map<string, string>();
  if (matrix) {
    branches = branchesWorthAPullRequest(
      plan,
      checkpoint,
      rpgName,
      new Set(await refsUnder(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`)),
    );
    // Each wave job's branch holds what the job had; the next wave builds on it, whatever it held before.
    await pushRefs(
      dir,
      "origin",
      [
        ...[...branches].filter(([id]) => mine(id)).map(([, b]) => `+refs/heads/${b}:refs/heads/${b}`),
        ...tags.map((t) => `refs/tags/${t}:refs/tags/${t}`),
      ],
      auth,
    );
  } else {
    ({ branches, stack, held } = await pushStack(dir, plan, rpgName, result.stack!, remoteHeads, auth));
    await pushRefs(
      dir,
      "origin",
      [...tags.map((t) => `refs/tags/${t}:refs/tags/${t}`), `+refs/heads/${runBranchName}:refs/heads/${runBranchName}`],
      auth,
    );
  }

  let prs: PublishedPullRequest[] = [];
  if (token) {
    const octokit = createOctokit(token, context.apiUrl);
    prs = await publishSubgraphs({
      octokit,
      repository: context.repository,
      plan,
      checkpoint,
      rpgPath,
      model,
      baseBranch: await baseBranchOf(inputs, context, octokit),
      branches,
      retryCommand: (nodeId) =>
        `gh workflow run ${shellWord(workflowFile(context))} -f mode=retry -f rpg-path=${shellWord(rpgPath)} -f nodes=${shellWord(nodeId)}`,
      ...(matrix ? { only: new Set(matrix) } : {}),
      ...(stack ? { stack, held } : {}),
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
    whole: !matrix,
  });
}

/** The subgraph branches to push and open PRs for: a subgraph with no passed node has none, even one an earlier run pushed. */
export function branchesWorthAPullRequest(
  plan: Plan,
  checkpoint: Checkpoint,
  rpgName: string,
  localBranches: ReadonlySet<string>,
): Map<string, string> {
  const branches = new Map<string, string>();
  for (const subgraph of plan.subgraphs) {
    const branch = subgraphBranch(rpgName, subgraph.id);
    if (localBranches.has(branch) && subgraph.nodes.some((id) => checkpoint.nodes[id]?.status === "passed"))
      branches.set(subgraph.id, branch);
  }
  return branches;
}

/** A word for a POSIX shell: the retry command is copied into terminals, and node ids are free text. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9._/:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function checkSubgraphs(plan: Plan, subgraphs: readonly string[]): string[] {
  const unknown = subgraphs.filter((id) => !plan.subgraphs.some((s) => s.id === id));
  if (unknown.length > 0) throw new Error(`input subgraphs names ${unknown.join(", ")}, not a subgraph of the RPG`);
  return [...subgraphs];
}
