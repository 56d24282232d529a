import { randomUUID } from "node:crypto";
import * as core from "@actions/core";
import { generate, type GenerateOptions, type GenerateResult } from "../engine/generate.js";
import { committedReport } from "../report/generation-report.js";
import { progressPrinter } from "../report/progress.js";
import { writeRunReport } from "../report/run-report.js";

/**
 * The engine's generate in a runner: a line per node on stdout, notices as warnings, and the
 * run's report written where the CLI writes it and returned for the job summary and the issue.
 * Node ids, test output and model text are not ours: while they are printed, the runner must
 * not take a line of theirs for a workflow command.
 */
export async function generateInRunner(
  options: Omit<GenerateOptions, "onEvent" | "onNotice" | "renderCommittedReport">,
): Promise<GenerateResult & { report: string }> {
  const notices: string[] = [];
  const stop = randomUUID();
  let result: GenerateResult;
  process.stdout.write(`::stop-commands::${stop}\n`);
  try {
    result = await generate({
      // The bundle in dist/ ships without pyright: Python's parser answers for it (decision 0028).
      languageServer: false,
      ...options,
      renderCommittedReport: committedReport,
      onEvent: progressPrinter((line) => void process.stdout.write(line)),
      onNotice: (notice) => notices.push(notice),
    });
  } finally {
    process.stdout.write(`::${stop}::\n`);
    for (const notice of notices) core.warning(notice);
  }
  const { report } = await writeRunReport(options.outDir, { ...result, rpgPath: options.rpgPath, model: options.model });
  return { ...result, report };
}
