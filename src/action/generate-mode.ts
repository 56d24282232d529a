import * as core from "@actions/core";
import { runBranch, subgraphBranchPrefix, workBranch, workBranchPrefix } from "../record/branch-names.js";
import { combineNeededBranches, fetchSubgraphBranches, fetchWorkBranches } from "../engine/matrix.js";
import { rpgHash } from "../engine/run-id.js";
import { selectProvider } from "../llm/select.js";
import type { Checkpoint } from "../engine/checkpoint.js";
import type { Plan } from "../plan/plan.js";
import { branchHeads, headOf, refsUnder, takeFiles } from "../workspace/git.js";
import { stackOwnedPaths, topOfStack } from "../engine/pr-stack.js";
import { pushRunRecord } from "./push-stack.js";
import { runnerCheckout, remoteAuthOf } from "./runner-checkout.js";
import { useFreshToken, type Credentials } from "./credentials.js";
import type { ActionContext, RpgAtHand } from "./context.js";
import { shipRun } from "./publish-stack.js";
import { finish } from "./finish.js";
import { generateInRunner } from "./run-engine.js";
import { readRevision, replyToReview } from "./revision.js";
import type { ActionInputs } from "./inputs.js";

/**
 * Modes generate, retry and revise: prepare the checkout, run the engine, push, and
 * publish. With `subgraphs` (matrix mode), only those subgraphs are generated, on the
 * code their dependencies' branches hold, and only their branches and PRs are written.
 */
export async function runGeneration(
  inputs: ActionInputs,
  context: ActionContext,
  at: RpgAtHand,
  credentials?: Credentials,
  commandPrefix = "/rpg",
): Promise<void> {
  const { plan, rpgPath } = at;
  const { dir, auth: fetchAuth, rpgName } = runnerCheckout(inputs, context, at);
  const runBranchName = runBranch(rpgName);
  const matrix = inputs.subgraphs.length > 0 ? checkSubgraphs(plan, inputs.subgraphs) : undefined;

  // Reruns build on the branches earlier runs pushed; what origin had is the lease each push checks.
  await fetchSubgraphBranches(dir, rpgName, fetchAuth);
  const remoteHeads = await branchHeads(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`);
  // A subgraph branch that does not exist yet starts from the base the workflow checked out.
  const base = await headOf(dir);
  if (matrix) {
    await fetchWorkBranches(dir, rpgName, fetchAuth);
    const { missing } = await combineNeededBranches(dir, at.rpg, plan, rpgName, runBranchName, matrix);
    for (const id of missing) core.warning(`subgraph ${id} has no branch (no node of it passed); the nodes that need it will be skipped`);
  } else {
    // The open PRs hold the work so far: the files of the top of their stack are laid over
    // the base, so the run resumes from them (merged ones are in the base already).
    const top = await topOfStack(dir, plan, rpgName);
    if (top) await takeFiles(dir, top, await stackOwnedPaths(dir, base, at.rpg));
  }

  const revision = inputs.mode === "revise" ? await readRevision(inputs, context, at, dir) : undefined;
  if (revision && revision.nodes.length === 0) {
    // Nothing asked for names a node: say so where it was asked, and spend no model call.
    await replyToReview(inputs, context, revision, undefined, commandPrefix);
    core.warning("mode revise: the request names no node of the graph (see the replies on the pull request); nothing was generated");
    return;
  }

  const { provider, model } = await selectProvider({ replay: inputs.replay || undefined, model: inputs.model || undefined }, process.env);
  const result = await generateInRunner({
    rpg: at.rpg,
    rpgPath,
    rpgSha256: rpgHash(at.text),
    outDir: dir,
    provider,
    model,
    // A checkpoint on the branch (or merged into the base) is continued: passed nodes
    // whose specification is unchanged are kept; a missing one starts afresh.
    mode: "resume",
    only: revision ? revision.nodes : inputs.mode === "generate" || inputs.nodes.length === 0 ? undefined : inputs.nodes,
    revise: revision ? { notes: revision.notes } : undefined,
    subgraphs: matrix,
    maxIterations: inputs.maxIterations,
    diagnosisVotes: inputs.diagnosisVotes,
    mutants: inputs.mutants,
    integrationTests: inputs.integrationTests,
    fixTools: inputs.fixTools,
    review: inputs.review,
    concurrency: inputs.concurrency,
    sandbox: inputs.sandbox,
    git: true,
    branchPerSubgraph: true,
    branchBase: base,
  });

  const { checkpoint } = result;
  // Generating may have taken longer than an installation token lives: the writes below get a fresh one.
  if (credentials) await useFreshToken(inputs, credentials, (token) => core.setSecret(token));
  const auth = remoteAuthOf(inputs, context);
  const finished = { plan, rpgPath, checkpoint, report: result.report, runId: result.runId };
  if (matrix) {
    // Each wave job's work branch holds what the job had; the next waves and the report job build on it.
    const local = new Set(await refsUnder(dir, `refs/heads/${workBranchPrefix(rpgName)}`));
    const work = branchesWithAPassedNode(plan, checkpoint, local, (id) => workBranch(rpgName, id));
    const mine = [...work].filter(([id]) => matrix.includes(id)).map(([, b]) => b);
    await pushRunRecord(dir, result.runId, matrix, mine, auth);
    await finish(inputs, context, { ...finished, prs: [], branch: undefined, whole: false });
    return;
  }
  const prs = await shipRun(inputs, context, {
    dir,
    plan,
    rpgName,
    runId: result.runId,
    stack: result.stack!,
    remoteHeads,
    auth,
    checkpoint,
    rpgPath,
    model,
  });
  if (revision) await replyToReview(inputs, context, revision, { checkpoint, runId: result.runId }, commandPrefix);
  await finish(inputs, context, { ...finished, prs, branch: runBranchName, whole: true });
}

/** The branches worth keeping of a run: a subgraph with no passed node has none, even one an earlier run pushed. */
export function branchesWithAPassedNode(
  plan: Plan,
  checkpoint: Checkpoint,
  localBranches: ReadonlySet<string>,
  branchOf: (subgraphId: string) => string,
): Map<string, string> {
  const branches = new Map<string, string>();
  for (const subgraph of plan.subgraphs) {
    const branch = branchOf(subgraph.id);
    if (localBranches.has(branch) && subgraph.nodes.some((id) => checkpoint.nodes[id]?.status === "passed"))
      branches.set(subgraph.id, branch);
  }
  return branches;
}

function checkSubgraphs(plan: Plan, subgraphs: readonly string[]): string[] {
  const unknown = subgraphs.filter((id) => !plan.subgraphs.some((s) => s.id === id));
  if (unknown.length > 0) throw new Error(`input subgraphs names ${unknown.join(", ")}, not a subgraph of the RPG`);
  return [...subgraphs];
}
