import { basename, dirname, resolve } from "node:path";
import { packageDirectories } from "../assembly/layout.js";
import type { PlannedSubgraph } from "../plan/plan.js";
import { normalizePath } from "../rpg/paths.js";
import { refSafe } from "../rpg/ref-names.js";
import type { Rpg } from "../rpg/schema.js";
import type { Checkpoint } from "./checkpoint.js";

/** Every path of the output that rpg-forge writes, relative to its root. */
export function ownedPaths(rpg: Rpg, testFileOf: (id: string) => string, extra: readonly string[]): Set<string> {
  const paths = new Set<string>(extra);
  for (const node of rpg.nodes) {
    if (node.node_type !== "leaf") continue;
    paths.add(normalizePath(node.file_path));
    paths.add(testFileOf(node.id));
  }
  for (const dir of packageDirectories(rpg)) paths.add(`${dir}/__init__.py`);
  return paths;
}

/** A subgraph is complete when none of its nodes is still to be generated. */
export function isComplete(subgraph: PlannedSubgraph, checkpoint: Checkpoint): boolean {
  return subgraph.nodes.every((id) => {
    const status = checkpoint.nodes[id]?.status;
    return status === "passed" || status === "failed" || status === "skipped";
  });
}

/** The branch of one subgraph's work: what the Action turns into one pull request. */
export const subgraphBranch = (rpgName: string, subgraphId: string): string => `${subgraphBranchPrefix(rpgName)}${refSafe(subgraphId)}`;

/** What every subgraph branch of an RPG starts with (`rpg/<name>/`), to fetch or list them together. */
export const subgraphBranchPrefix = (rpgName: string): string => `rpg/${refSafe(rpgName)}/`;

/**
 * The branch a matrix job leaves its subgraph's work on, for the next waves and the report
 * job to build on (`rpg-work/<name>/<subgraph>`). Not a PR branch: the report job makes
 * the stack of those from the work of all jobs.
 */
export const workBranch = (rpgName: string, subgraphId: string): string => `${workBranchPrefix(rpgName)}${refSafe(subgraphId)}`;

export const workBranchPrefix = (rpgName: string): string => `rpg-work/${refSafe(rpgName)}/`;

/** The PRD's commit message: "feat: complete <subgraph> (nodes <first>-<last>)". */
export function subgraphCommitMessage(subgraph: PlannedSubgraph): string {
  const first = subgraph.nodes[0] ?? "";
  const last = subgraph.nodes.at(-1) ?? "";
  return `feat: complete ${subgraph.name} (nodes ${first === last ? first : `${first}-${last}`})`;
}

/** The PRD's tag phase4-subgraph-{id}, made unique per run. */
export const subgraphTag = (runId: string, subgraphId: string): string => `${runTagPrefix(runId)}${refSafe(subgraphId)}`;

/** What every tag of a run starts with (`rpg/<run-id>/`), to list them together. */
export const runTagPrefix = (runId: string): string => `rpg/${runId}/`;

/** The name branches are made of: the RPG's metadata.name, else the folder the RPG is in. */
export function rpgNameOf(rpg: Rpg, rpgPath: string): string {
  const name = rpg.metadata.name;
  return typeof name === "string" && name ? name : basename(dirname(resolve(rpgPath)));
}

/** The branch a run's commits go to. */
export const runBranch = (rpgName: string): string => `rpg-forge/${refSafe(rpgName)}`;
