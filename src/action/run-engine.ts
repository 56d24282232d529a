import { randomUUID } from "node:crypto";
import * as core from "@actions/core";
import { generate, type GenerateOptions, type GenerateResult } from "../engine/generate.js";
import { progressPrinter } from "../report/progress.js";

/**
 * The engine's generate in a runner: a line per node on stdout, notices as warnings. Node
 * ids, test output and model text are not ours: while they are printed, the runner must not
 * take a line of theirs for a workflow command.
 */
export async function generateInRunner(options: Omit<GenerateOptions, "onEvent" | "onNotice">): Promise<GenerateResult> {
  const notices: string[] = [];
  const stop = randomUUID();
  process.stdout.write(`::stop-commands::${stop}\n`);
  try {
    return await generate({
      ...options,
      onEvent: progressPrinter((line) => void process.stdout.write(line)),
      onNotice: (notice) => notices.push(notice),
    });
  } finally {
    process.stdout.write(`::${stop}::\n`);
    for (const notice of notices) core.warning(notice);
  }
}
