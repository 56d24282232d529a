import type { Checkpoint } from "../record/checkpoint.js";
import type { Plan } from "../plan/plan.js";
import { code } from "./markdown.js";
import { countsOf, renderNodeTable, scopeOf } from "./pull-request.js";
import { subgraphMeasures } from "./subgraph-measures.js";

/**
 * The answer to `status` on an rpg-forge pull request: how many of its subgraph's nodes passed and
 * the node table with reasons, as the branch's own checkpoint says, and the report when there is one.
 */
export function renderPullRequestStatus(input: {
  plan: Plan;
  checkpoint: Checkpoint;
  subgraphId: string;
  rpgPath: string;
  branch: string;
  reportUrl: string | undefined;
}): string {
  const render = {
    plan: input.plan,
    checkpoint: input.checkpoint,
    subgraphId: input.subgraphId,
    rpgPath: input.rpgPath,
    dependencyPrs: [],
    baseBranch: "",
  };
  const { subgraph, leaves } = scopeOf(render);
  const c = countsOf(leaves, input.checkpoint);
  return [
    `### rpg-forge status of ${code(subgraph.name)}: ${c.passed} of ${c.total} nodes passed`,
    "",
    `As ${code(input.branch)} holds it now.${input.reportUrl ? ` The latest report: ${input.reportUrl}` : ""}`,
    "",
    ...renderNodeTable(render, leaves, { reasons: true }),
    ...subgraphMeasures(input.checkpoint, subgraph.id, leaves),
  ].join("\n");
}
