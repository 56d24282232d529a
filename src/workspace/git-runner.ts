import { execFile } from "node:child_process";

/**
 * Settings every git call rpg-forge makes carries: the output repository is not
 * trusted. Generated code run without bwrap can write `.git/hooks/*` or a
 * `core.fsmonitor` command into it, and git would run those with our environment
 * (OPENAI_API_KEY, GITHUB_TOKEN) on our commits, checkouts and status calls. A hooks
 * path of /dev/null holds no hook, and the command-line setting wins over the
 * repository's config.
 */
export const UNTRUSTED_REPOSITORY_CONFIG = ["core.hooksPath=/dev/null", "core.fsmonitor=false"] as const;

/** A split index would write its shared part into the repository's .git, even for an index of the caller's own. */
const OWN_INDEX_CONFIG = [...UNTRUSTED_REPOSITORY_CONFIG, "core.splitIndex=false"];

/**
 * The GIT_* variables a run honours. Some ambient ones can make git run commands or
 * work on another repository (GIT_SSH_COMMAND, GIT_DIR when run from a hook); these
 * only say who commits, when, and which config files apply, which CI and the Action rely on.
 */
const ALLOWED_ENVIRONMENT = new Set([
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_NOSYSTEM",
]);

/** Variables without the GIT_ prefix that git still reads to start a program. */
const PROGRAM_VARIABLES = new Set(["EDITOR", "VISUAL", "PAGER", "SSH_ASKPASS", "PREFIX"]);

export interface GitOptions {
  /**
   * An index of the caller's own (GIT_INDEX_FILE), so that the repository's index is
   * never read or written: for building trees and commits without a checkout.
   */
  indexFile?: string;
  /** Variables the caller sets itself on top of the guarded environment (a remote's credentials). */
  env?: Readonly<Record<string, string>>;
}

/** One git command; output as bytes (`ls-tree -z`, blobs). A failure's message is git's stderr, with `code` its exit status. */
export type Git = (args: readonly string[], input?: string) => Promise<Buffer>;

/**
 * git in `dir`, the one way rpg-forge runs it: with UNTRUSTED_REPOSITORY_CONFIG, and
 * with the process's environment less every GIT_* variable not allowed and less the
 * program variables, read at each call.
 */
export function gitIn(dir: string, options: GitOptions = {}): Git {
  const config = (options.indexFile === undefined ? UNTRUSTED_REPOSITORY_CONFIG : OWN_INDEX_CONFIG).flatMap((c) => ["-c", c]);
  return (args, input) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        "git",
        ["-C", dir, ...config, ...args],
        { env: guardedEnvironment(options), encoding: "buffer", maxBuffer: 1024 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const said = stderr.toString("utf8");
          reject(Object.assign(error, { stdout: stdout.toString("utf8"), stderr: said, message: said || error.message }));
        },
      );
      // A git that does not read its input closes the pipe: that is not an error of the call.
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(input ?? "");
    });
}

function guardedEnvironment(options: GitOptions): NodeJS.ProcessEnv {
  const refused = Object.keys(process.env).filter(refusedName);
  // Nothing to take away or add (most calls): the environment itself, which execFile copies as it spawns. Reading every
  // value into a copy of our own first doubled that work, about half a millisecond a call with a runner's hundred
  // variables (issue 16).
  if (refused.length === 0 && options.indexFile === undefined && options.env === undefined) return process.env;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of refused) delete env[name];
  if (options.indexFile !== undefined) env.GIT_INDEX_FILE = options.indexFile;
  return Object.assign(env, options.env);
}

function refusedName(name: string): boolean {
  const upper = name.toUpperCase();
  return upper.startsWith("GIT_") ? !ALLOWED_ENVIRONMENT.has(upper) : PROGRAM_VARIABLES.has(upper);
}
