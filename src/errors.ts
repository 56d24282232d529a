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
  OUTPUT_NOT_DIRECTORY: "--out names something that exists and is not a directory.",
  OUTPUT_NOT_WRITABLE: "The output directory cannot be created or written to.",
  OUTPUT_SYMLINK: "A folder or file rpg-forge writes in the output (docs/, .rpg-forge/ and what they hold) is a symbolic link.",
  GIT_UNAVAILABLE: "git is not installed or does not run.",
  GIT_IDENTITY_MISSING: "git has no user.name or user.email, so it would refuse to commit.",
  GIT_LOCKED: "The output repository's index is locked by another git process (.git/index.lock).",
  GIT_DIRTY: "The output repository has uncommitted changes that rpg-forge did not make.",
  GIT_FAILED: "A git command failed; the message has git's own words.",
  ROLLBACK_NO_TAG: "rollback found no completed subgraph to go back to.",
  WORKSPACE_PATH_REFUSED:
    "A write or read was refused because its path leaves the package, enters .git/ or .github/, or goes through a symbolic link.",
  WORK_TREE_REFUSED: "The folder the TDD loop would run in (.rpg-forge/work/ in the output) exists and was not made by rpg-forge.",
  MODEL_NOT_CONFIGURED: "Neither OPENAI_API_KEY nor OPENAI_BASE_URL is set (or one is malformed), and no --replay cassette was given.",
  MODEL_AUTH: "The model endpoint refused the API key (HTTP 401 or 403).",
  MODEL_UNREACHABLE: "The model endpoint could not be reached (connection refused, DNS failure, network down).",
  MODEL_UNAVAILABLE: "The model endpoint kept answering 429 or 5xx, or timing out, after every retry.",
  MODEL_NOT_FOUND: "The model endpoint has no model of the configured name (HTTP 404).",
  CASSETTE_NOT_FOUND: "The cassette file given to --replay does not exist, is a directory or cannot be read.",
  CASSETTE_INVALID: "A line of the cassette file is not valid JSON or not a recorded exchange, or the file holds no exchange.",
  CASSETTE_WRITE_FAILED: "An exchange could not be appended to the cassette being recorded (permissions, disk full).",
  SANDBOX_NO_PYTHON: "python3 or pytest cannot be found or does not start, so generated tests cannot run.",
  SANDBOX_BWRAP_UNAVAILABLE: "The bwrap sandbox was requested but bubblewrap is missing or cannot create a sandbox here.",
  SANDBOX_CWD_INVALID: "The package directory handed to the sandbox is not an absolute path to an existing directory.",
  SANDBOX_START_FAILED: "The test process could not be started, or bubblewrap failed while setting up the sandbox.",
  APP_CREDENTIALS_INCOMPLETE: "The Action was given one of app-id and app-private-key without the other.",
  APP_CREDENTIALS_REFUSED: "The rpg-forge App's credentials did not give an installation token for the repository.",
  APP_ENV_MISSING: "The App's server was started with some of APP_ID, the private key and WEBHOOK_SECRET but not all.",
  APP_CONFIG_INVALID: "The repository's .github/rpg-forge.yml has a key of the wrong type or value, or is not YAML.",
  APP_RPG_PATH_REFUSED: "An issue labeled for generation names, on its `rpg:` line, a path outside the repository or inside .github/.",
  APP_RPG_COMMIT_REFUSED: "GitHub refused the commit of the RPG pasted into an issue to the issue's rpg-forge/issue-<n> branch.",
  LOCALIZE_UNKNOWN_NODE: "deps or view (or the debug loop's localization) names a node id the RPG does not have.",
  LOCALIZE_UNKNOWN_SYMBOL: "view --symbol names a function or class that the file does not define.",
  LOCALIZE_UNKNOWN_SUBGRAPH: "A search is scoped to a subgraph id the RPG does not have.",
  LOCALIZE_PATH_REFUSED:
    "view was given a path outside the repository, inside .git/ or .rpg-forge/, through a symbolic link, or not of a .py file.",
  LOCALIZE_EXHAUSTED: "A debug iteration asked for more localization queries (search, view, dependencies) than its limit of 20.",
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

/**
 * `CODE node-id field: message (file:line:column)`: the line every edge shows. A problem
 * about no node and no field (a missing file, a corrupt checkpoint) is `CODE: message (file)`.
 */
export function formatProblemLine(code: string, message: string, at: Location): string {
  const where = at.file
    ? ` (${at.file}${at.line !== undefined ? `:${at.line}${at.column !== undefined ? `:${at.column}` : ""}` : ""})`
    : "";
  const subject = at.nodeId === undefined && at.field === undefined ? "" : ` ${at.nodeId ?? "-"} ${at.field ?? "-"}`;
  return `${code}${subject}: ${message}${where}`;
}
