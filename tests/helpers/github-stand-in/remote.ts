import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { devNull, tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * The bare repository a test pushes to, as the stand-in's git side: branch tips for pull requests' head and
 * base, and merges made with real git in a throwaway clone whose result is pushed back, as GitHub's merge button
 * does. What GitHub decides (messages, status codes, which branches) stays in handlers.ts; this file only runs git.
 */

export type MergeMethod = "merge" | "squash" | "rebase";

export interface MergePlan {
  method: MergeMethod;
  baseRef: string;
  /** The tips read before merging: the push is refused if the base moved since, as GitHub refuses a stale merge. */
  baseSha: string;
  headSha: string;
  /** The commit message of a merge or squash commit; a rebase keeps each commit's own. */
  message: string;
  /** The commit date, the pull request's merged_at; a rebase keeps each commit's author date. */
  date: string;
}

export interface Remote {
  /** Every branch's tip, keyed by the name without refs/heads/. */
  tips(): Map<string, string>;
  /** Whether `commit` is reachable from `from`, i.e. there is nothing in `commit` that `from` lacks. */
  contains(from: string, commit: string): boolean;
  /** The full messages of the commits in `head` but not in `base`, oldest first. */
  messages(base: string, head: string): string[];
  /** Undefined when the merge conflicts: then nothing was pushed. */
  merge(plan: MergePlan): { sha: string } | undefined;
  /** Deletes a branch, unless it moved away from `sha` meanwhile. */
  deleteBranch(ref: string, sha: string): void;
}

// GitHub commits as "GitHub <noreply@github.com>". Nothing of the host may leak in: not its config, and not
// GIT_DIR, GIT_INDEX_FILE and friends, which are set when the tests run from a git hook.
function gitEnv(date?: string): NodeJS.ProcessEnv {
  const host = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  return {
    ...host,
    GIT_AUTHOR_NAME: "GitHub",
    GIT_AUTHOR_EMAIL: "noreply@github.com",
    GIT_COMMITTER_NAME: "GitHub",
    GIT_COMMITTER_EMAIL: "noreply@github.com",
    ...(date && { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }),
    GIT_CONFIG_GLOBAL: devNull,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
  };
}

/** Opens the bare repository at `path`; throws at once if it is not one, rather than at the first pull request. */
export function openRemote(path: string): Remote {
  const gitDir = resolve(path);
  const run = (args: string[], cwd?: string, date?: string): string =>
    execFileSync("git", args, { cwd, env: gitEnv(date), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const bare = (...args: string[]) => run(["--git-dir", gitDir, ...args]);

  let isBare: string;
  try {
    isBare = run(["-C", gitDir, "rev-parse", "--is-bare-repository"]).trim();
  } catch (error) {
    throw new Error(`stand-in: the remote ${gitDir} is not a git repository`, { cause: error });
  }
  if (isBare !== "true") throw new Error(`stand-in: the remote ${gitDir} must be a bare repository (git init --bare)`);

  return {
    tips() {
      const lines = bare("for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/").split("\n").filter(Boolean);
      return new Map(lines.map((line) => [line.slice(line.indexOf(" ") + 1 + "refs/heads/".length), line.slice(0, line.indexOf(" "))]));
    },

    contains(from, commit) {
      try {
        bare("merge-base", "--is-ancestor", commit, from);
        return true;
      } catch (error) {
        if ((error as { status?: number }).status === 1) return false;
        throw error;
      }
    },

    messages(base, head) {
      return bare("log", "--reverse", "--format=%B%x00", `${base}..${head}`)
        .split("\0")
        .map((message) => message.trim())
        .filter(Boolean);
    },

    merge({ method, baseRef, baseSha, headSha, message, date }) {
      const dir = mkdtempSync(join(tmpdir(), "github-stand-in-merge-"));
      try {
        const git = (...args: string[]) => run(args, dir, date);
        run(["clone", "--quiet", "--no-checkout", gitDir, dir]);
        git("checkout", "--quiet", "--detach", method === "rebase" ? headSha : baseSha);
        try {
          if (method === "merge") git("merge", "--quiet", "--no-ff", "--no-edit", "-m", message, headSha);
          // --squash takes the merge base of base and head, as GitHub does, and commits nothing itself.
          else if (method === "squash") git("merge", "--quiet", "--squash", headSha);
          // Without --rebase-merges, rebase drops merge commits and commits whose change base already has, as GitHub does.
          else git("rebase", "--quiet", baseSha);
        } catch (error) {
          // git exits 1 both for a conflict and for a bad argument; only a conflict leaves unmerged paths.
          if (git("ls-files", "--unmerged").trim()) return undefined;
          throw error;
        }
        if (method === "squash") git("commit", "--quiet", "--allow-empty", "--no-verify", "-m", message);
        const sha = git("rev-parse", "HEAD").trim();
        git("push", "--quiet", "origin", `${sha}:refs/heads/${baseRef}`);
        return { sha };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },

    deleteBranch(ref, sha) {
      bare("update-ref", "-d", `refs/heads/${ref}`, sha);
    },
  };
}
