/**
 * Where a problem sits, as precisely as we know it. Every edge renders the same
 * fields: the CLI as `CODE node-id field: message (file:line:column)`, the Action
 * as an annotation on the file and line.
 */
export interface Location {
  file?: string;
  nodeId?: string;
  field?: string;
  line?: number;
  column?: number;
}

/** Codes of errors that stop a run (as opposed to RPG issues, which are results). */
export const RUN_ERROR_CODES = {
  INPUT_NOT_FOUND: "A file named on the command line does not exist or cannot be read.",
  CHECKPOINT_CORRUPT: "The checkpoint file is not valid JSON or does not match the checkpoint schema.",
  CHECKPOINT_UNREADABLE: "The checkpoint file exists but cannot be read (permissions, or a path through a file).",
  CHECKPOINT_EXISTS: "A checkpoint exists and neither --resume nor --fresh was given.",
  CHECKPOINT_WRITE_FAILED: "The checkpoint could not be written (disk full, permissions).",
  RESUME_UNKNOWN_NODE: "--start-from-node names a node that is not in the RPG.",
  RESUME_DEPENDENCY_NOT_PASSED: "--start-from-node names a node whose dependencies have not all passed.",
  RPG_INVALID: "The RPG has validation errors; each is listed with its own code.",
} as const;

export type RunErrorCode = keyof typeof RUN_ERROR_CODES;

/** The one error class rpg-forge throws; third-party errors travel as `cause`. */
export class RpgForgeError extends Error {
  readonly code: RunErrorCode;
  readonly at: Location;
  readonly hint: string | undefined;

  constructor(code: RunErrorCode, message: string, at: Location = {}, hint?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.at = at;
    this.hint = hint;
  }
}

/** `CODE node-id field: message (file:line:column)`: the line every edge shows. */
export function formatProblemLine(code: string, message: string, at: Location): string {
  const where = at.file
    ? ` (${at.file}${at.line !== undefined ? `:${at.line}${at.column !== undefined ? `:${at.column}` : ""}` : ""})`
    : "";
  return `${code} ${at.nodeId ?? "-"} ${at.field ?? "-"}: ${message}${where}`;
}
