import type { GenerateResult } from "../../src/engine/generate.js";
import { renderReportComment } from "../../src/report/pull-request.js";
import { writeRunReport } from "../../src/report/run-report.js";

/** The run's own report of a scripted run (rpg.json, fake-model), as the CLI writes it. */
export async function runReportOf(out: string, result: GenerateResult): Promise<string> {
  return (await writeRunReport(out, { ...result, rpgPath: "rpg.json", model: "fake-model" })).report;
}

/** The report comment a subgraph's pull request gets after a scripted run, on a PR to main. */
export function prReportOf(result: GenerateResult, subgraphId: string): string {
  return renderReportComment({
    plan: result.plan,
    checkpoint: result.checkpoint,
    subgraphId,
    rpgPath: "rpg.json",
    dependencyPrs: [],
    baseBranch: "main",
    model: "fake-model",
  });
}
