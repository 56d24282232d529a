import { resolve } from "node:path";
import { redactSecrets } from "../redact.js";
import { saveRunFile } from "../workspace/artifacts.js";
import { renderGenerationReport, type ReportInput } from "./generation-report.js";

/** A finished run as the engine's result has it, with the input path and model the edge asked for. */
export interface FinishedRun extends Omit<ReportInput, "generatedAt"> {
  /** When the run's work was done: the report's "Generated". */
  finishedAt: Date;
}

/**
 * The run's own report, with what changes on every run (run id, timings, tokens, git history),
 * rendered and written to `.rpg-forge/runs/<run-id>/generation_report.md` in the output. Every
 * edge calls this, so the file is the same whichever ran; the text comes back as it was
 * written (redacted) for the edges that also show it.
 */
export async function writeRunReport(outDir: string, run: FinishedRun): Promise<{ path: string; report: string }> {
  const report = redactSecrets(renderGenerationReport({ ...run, generatedAt: run.finishedAt }));
  const path = await saveRunFile(resolve(outDir), run.runId, "generation_report.md", report);
  return { path, report };
}
