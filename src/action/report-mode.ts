import * as core from "@actions/core";
import { runBranch, subgraphBranchPrefix, workBranch, workBranchPrefix } from "../record/branch-names.js";
import { fetchSubgraphBranches, fetchWorkBranches, layWorkBranchesOver } from "../engine/matrix.js";
import { stateAt } from "../engine/pr-stack.js";
import { rpgHash } from "../engine/run-id.js";
import { noModel } from "../llm/no-model.js";
import { branchHeads, headOf } from "../workspace/git.js";
import { runnerCheckout, remoteAuthOf } from "./runner-checkout.js";
import { useFreshToken, type Credentials } from "./credentials.js";
import type { ActionContext, RpgAtHand } from "./context.js";
import { finish } from "./finish.js";
import type { ActionInputs } from "./inputs.js";
import { shipRun } from "./publish-stack.js";
import { generateInRunner } from "./run-engine.js";

/**
 * Mode report, the last job of matrix mode: puts the wave jobs' work (their work branches,
 * each with its checkpoint) together on the base and makes of it what a single-job run
 * makes: a snapshot commit per subgraph, the stack of PR branches and its pull requests,
 * and the report for the job summary, the outputs and the `issue` input. It generates no
 * node and calls no model; it runs each snapshot's suite, as every commit does.
 */
export async function runReport(inputs: ActionInputs, context: ActionContext, at: RpgAtHand, credentials?: Credentials): Promise<void> {
  const { plan, rpgPath } = at;
  const { dir, auth: fetchAuth, rpgName } = runnerCheckout(inputs, context, at);
  await fetchWorkBranches(dir, rpgName, fetchAuth);
  await fetchSubgraphBranches(dir, rpgName, fetchAuth);
  const remoteHeads = await branchHeads(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`);
  const base = await headOf(dir);
  const combined = await layWorkBranchesOver(dir, at.rpg, plan, rpgName);
  const last = combined.at(-1);
  if (last === undefined)
    throw new Error(`no subgraph of ${rpgPath} has a work branch (${workBranchPrefix(rpgName)}...): there is nothing to report`);
  const model = (await stateAt(dir, workBranch(rpgName, last)))?.model ?? (inputs.model || "unknown");
  const result = await generateInRunner({
    rpg: at.rpg,
    rpgPath,
    rpgSha256: rpgHash(at.text),
    outDir: dir,
    provider: noModel("the report job of matrix mode puts the waves' work together; it generates nothing"),
    model,
    mode: "resume",
    // Nothing to generate: every subgraph's nodes are as their job left them.
    only: [],
    sandbox: inputs.sandbox,
    git: true,
    branchPerSubgraph: true,
    branchBase: base,
  });
  const runBranchName = runBranch(rpgName);
  // The snapshots' suites may have taken longer than an installation token lives: the writes below get a fresh one.
  if (credentials) await useFreshToken(inputs, credentials, (token) => core.setSecret(token));
  const auth = remoteAuthOf(inputs, context);
  const prs = await shipRun(inputs, context, {
    dir,
    plan,
    rpgName,
    runId: result.runId,
    stack: result.stack!,
    remoteHeads,
    auth,
    checkpoint: result.checkpoint,
    rpgPath,
    model,
  });
  await finish(inputs, context, {
    plan,
    rpgPath,
    checkpoint: result.checkpoint,
    prs,
    report: result.report,
    runId: result.runId,
    branch: runBranchName,
    whole: true,
  });
}
