import { formatProblemLine, RpgForgeError } from "../errors.js";
import type { RpgIssue } from "../rpg/issues.js";
import { terminalLine } from "../report/terminal.js";

/** Where a command writes: results to `out`, problems and progress to `err`. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const EXIT = { ok: 0, failed: 1, badInput: 2, interrupted: 130 } as const;

/**
 * One line per issue, errors first; warnings are marked so that scripts matching `CODE node field:` see errors only.
 * Messages quote the RPG, so control characters are taken out: a node id must not move the cursor or start a line.
 */
export function printIssues(io: CliIo, issues: readonly RpgIssue[]): void {
  const errors = issues.filter((i) => i.severity === "error");
  const warnings = issues.filter((i) => i.severity === "warning");
  for (const issue of errors) io.err(`${terminalLine(formatProblemLine(issue.code, issue.message, issue.at))}\n`);
  for (const issue of warnings) io.err(`warning: ${terminalLine(formatProblemLine(issue.code, issue.message, issue.at))}\n`);
}

/** Our errors become one line and a hint; anything else is a bug and keeps its stack. */
export function printRunError(io: CliIo, error: unknown): number {
  if (error instanceof RpgForgeError) {
    io.err(`${terminalLine(formatProblemLine(error.code, error.message, error.at))}\n`);
    if (error.hint) io.err(`  hint: ${terminalLine(error.hint)}\n`);
    return EXIT.badInput;
  }
  throw error;
}
