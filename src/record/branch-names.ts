import { posix } from "node:path";
import { refSafe } from "../rpg/ref-names.js";
import type { Rpg } from "../rpg/schema.js";

/**
 * The names of rpg-forge's branches and tags, built and recognized in one place: the engine
 * makes them, the Action pushes them, the App and the workflow template tell them from a
 * person's. A name part is made ref-safe (src/rpg/ref-names.ts).
 */

/**
 * The name branches are made of: the RPG's metadata.name, else the name of the folder the RPG is in.
 * A path with no folder of its own (`rpg.json`, relative to a repository's root) takes `rootName`: the
 * App passes the repository's name, which is what a runner's checkout folder is called.
 */
export function rpgNameOf(rpg: Pick<Rpg, "metadata">, rpgPath: string, rootName = ""): string {
  const name = rpg.metadata.name;
  if (typeof name === "string" && name) return name;
  const folder = posix.basename(posix.dirname(rpgPath.replace(/\\/g, "/")));
  return folder === "." ? rootName : folder;
}

/** A subgraph's pull request branch: `rpg/<rpg-name>/<subgraph>`. */
export const PR_BRANCH_ROOT = "rpg/";
/** A run's own branch: `rpg-forge/<rpg-name>`; and an issue's graph: `rpg-forge/issue-<n>`. */
export const RUN_BRANCH_ROOT = "rpg-forge/";
/** A matrix job's work: `rpg-work/<rpg-name>/<subgraph>`. */
export const WORK_BRANCH_ROOT = "rpg-work/";

/** The branch of one subgraph's work: what the Action turns into one pull request. */
export const subgraphBranch = (rpgName: string, subgraphId: string): string => `${subgraphBranchPrefix(rpgName)}${refSafe(subgraphId)}`;

/** What every subgraph branch of an RPG starts with (`rpg/<name>/`), to fetch or list them together. */
export const subgraphBranchPrefix = (rpgName: string): string => `${PR_BRANCH_ROOT}${refSafe(rpgName)}/`;

/**
 * The branch a matrix job leaves its subgraph's work on, for the next waves and the report
 * job to build on (`rpg-work/<name>/<subgraph>`). Not a PR branch: the report job makes
 * the stack of those from the work of all jobs.
 */
export const workBranch = (rpgName: string, subgraphId: string): string => `${workBranchPrefix(rpgName)}${refSafe(subgraphId)}`;

export const workBranchPrefix = (rpgName: string): string => `${WORK_BRANCH_ROOT}${refSafe(rpgName)}/`;

/** The branch a run's commits go to. */
export const runBranch = (rpgName: string): string => `${RUN_BRANCH_ROOT}${refSafe(rpgName)}`;

/** The branch an issue's pasted graph is committed to, which the run it starts works from. */
export const issueBranch = (issue: number): string => `${RUN_BRANCH_ROOT}issue-${issue}`;

/** The PRD's tag phase4-subgraph-{id}, made unique per run. */
export const subgraphTag = (runId: string, subgraphId: string): string => `${runTagPrefix(runId)}${refSafe(subgraphId)}`;

/** What every tag of a run starts with (`rpg/<run-id>/`), to list them together. */
export const runTagPrefix = (runId: string): string => `${PR_BRANCH_ROOT}${runId}/`;

/** Whether a branch (a name, or a full `refs/heads/` ref) is one of rpg-forge's own, whose pushes are never a new graph. */
export function isOwnBranch(branch: string): boolean {
  const name = branch.replace(/^refs\/heads\//, "");
  return [PR_BRANCH_ROOT, RUN_BRANCH_ROOT, WORK_BRANCH_ROOT].some((root) => name.startsWith(root));
}

/** The subgraph a pull request branch is for, among `subgraphIds`; undefined when the branch is no subgraph's. */
export function subgraphOfPrBranch(branch: string, subgraphIds: readonly string[]): string | undefined {
  if (!branch.startsWith(PR_BRANCH_ROOT)) return undefined;
  const last = branch.slice(branch.lastIndexOf("/") + 1);
  return subgraphIds.find((id) => refSafe(id) === last);
}
