import { RpgForgeError } from "../errors.js";
import { gitIn } from "./git-runner.js";

/**
 * How git proves who pushes: an HTTP header for one server, as actions/checkout
 * sets it. It travels in the environment (GIT_CONFIG_COUNT), never in the command
 * line or a config file, so no process listing or leftover file shows the token.
 */
export interface RemoteAuth {
  /** The server the header is for, e.g. https://github.com. */
  serverUrl: string;
  token: string;
}

/** git for a remote: it never stops to ask for a password, and carries the header when there is one. */
function remoteGit(dir: string, auth: RemoteAuth | undefined) {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: "0" };
  if (auth) {
    const basic = Buffer.from(`x-access-token:${auth.token}`).toString("base64");
    Object.assign(env, {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: `http.${auth.serverUrl.replace(/\/+$/, "")}/.extraheader`,
      GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}`,
    });
  }
  const git = gitIn(dir, { env });
  return { raw: async (args: string[]): Promise<string> => (await git(args)).toString("utf8") };
}

/** Fetches refs from a remote (refspecs with globs allowed; a glob that matches nothing is fine). */
export async function fetchRefs(dir: string, remote: string, refspecs: readonly string[], auth?: RemoteAuth): Promise<void> {
  if (refspecs.length === 0) return;
  await remoteCall(() => remoteGit(dir, auth).raw(["fetch", "--no-tags", "--force", remote, ...refspecs]), `git fetch ${remote}`, auth);
}

/**
 * Pushes all refspecs or none (`--atomic`): a run's branches and tags land together,
 * so a PR never points at a branch whose dependency branch failed to arrive.
 */
export async function pushRefs(dir: string, remote: string, refspecs: readonly string[], auth?: RemoteAuth): Promise<void> {
  if (refspecs.length === 0) return;
  await remoteCall(() => remoteGit(dir, auth).raw(["push", "--atomic", "--porcelain", remote, ...refspecs]), `git push ${remote}`, auth);
}

/** A branch to set on the remote, and where it must be now for that to happen. */
export interface BranchUpdate {
  branch: string;
  sha: string;
  /** The remote branch's current commit as last seen; undefined: it must not exist yet. */
  expected: string | undefined;
}

/**
 * Sets the branches all together or not at all, each under a lease: git replaces a
 * remote branch (fast-forward or not) only when it still is where we saw it, so a
 * person's push in between is never overwritten. The explicit `<ref>:<expect>` form is
 * the one git documents as stable; a matching lease already allows a non-fast-forward,
 * so no `+` (git documents --force as turning lease checks off). An empty expect means
 * "must not exist". A branch already at `sha` is up to date and passes whatever its lease.
 */
export async function pushBranches(dir: string, remote: string, updates: readonly BranchUpdate[], auth?: RemoteAuth): Promise<void> {
  if (updates.length === 0) return;
  const leases = updates.map((u) => `--force-with-lease=refs/heads/${u.branch}:${u.expected ?? ""}`);
  const refspecs = updates.map((u) => `${u.sha}:refs/heads/${u.branch}`);
  try {
    await remoteCall(
      () => remoteGit(dir, auth).raw(["push", "--atomic", "--porcelain", ...leases, remote, ...refspecs]),
      `git push ${remote}`,
      auth,
    );
  } catch (error) {
    const refused = refusedBranches(((error as Error).cause as { stdout?: string } | undefined)?.stdout ?? "");
    if (refused.length === 0) throw error;
    const stale = refused.every((r) => r.reason.includes("stale info"));
    throw new RpgForgeError(
      "GIT_FAILED",
      `git push ${remote} refused ${refused.map((r) => `${r.branch} (${r.reason})`).join(", ")}; no branch was pushed`,
      {},
      stale ? "someone pushed to the branch since it was read: fetch it and run again" : "a branch protection rule or hook may refuse it",
      { cause: error },
    );
  }
}

/**
 * The branches `push --porcelain` reports as refused for their own reason: "!\t<from>:<to>\t<summary> (<reason>)".
 * Under --atomic the others say "atomic push failed", which is not their fault.
 */
function refusedBranches(porcelain: string): { branch: string; reason: string }[] {
  return porcelain.split("\n").flatMap((line) => {
    const match = /^!\t[^\t]*:refs\/heads\/([^\t]+)\t(.*)$/.exec(line);
    if (!match || match[2]!.includes("atomic push failed")) return [];
    return [{ branch: match[1]!, reason: match[2]!.replace(/^\[([^\]]*)\] \((.*)\)$/, "$1: $2") }];
  });
}

async function remoteCall(task: () => Promise<string>, what: string, auth: RemoteAuth | undefined): Promise<string> {
  try {
    return await task();
  } catch (error) {
    const failure = error as Error & { stderr?: string };
    let said = (failure.stderr || failure.message).trim().split("\n").filter(Boolean).slice(-3).join(" / ");
    if (auth) said = said.split(auth.token).join("***");
    throw new RpgForgeError(
      "GIT_FAILED",
      `${what} failed: ${said}`,
      {},
      "check that the token may write to the repository (contents: write)",
      {
        cause: error,
      },
    );
  }
}
