import { basename, dirname, resolve } from "node:path";
import { packageDirectories } from "../assembly/layout.js";
import type { Plan, PlannedSubgraph } from "../plan/plan.js";
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

/**
 * What a completed subgraph's commit holds: the modules and test files of its passed
 * nodes, the package scaffolding, and the checkpoint (which travels with the branch).
 * A failed node's files were restored, so nothing of it is in them.
 */
export function subgraphPaths(
  subgraph: PlannedSubgraph,
  plan: Plan,
  rpg: Rpg,
  checkpoint: Checkpoint,
  testFileOf: (id: string) => string,
  checkpointPath: string,
): string[] {
  const paths = new Set<string>(["pytest.ini", checkpointPath]);
  for (const dir of packageDirectories(rpg)) paths.add(`${dir}/__init__.py`);
  for (const id of subgraph.nodes) {
    const node = plan.nodes.get(id)!;
    if (node.node_type !== "leaf" || checkpoint.nodes[id]?.status !== "passed") continue;
    paths.add(normalizePath(node.file_path));
    paths.add(testFileOf(id));
  }
  return [...paths].sort();
}

/** A subgraph's files and those of every subgraph it needs, directly or not: what its own branch holds. */
export function closurePaths(subgraph: PlannedSubgraph, plan: Plan, pathsOf: (s: PlannedSubgraph) => string[]): string[] {
  const byId = new Map(plan.subgraphs.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const queue = [subgraph.id];
  const paths = new Set<string>();
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    if (seen.has(id)) continue;
    seen.add(id);
    const s = byId.get(id);
    if (!s) continue;
    for (const path of pathsOf(s)) paths.add(path);
    queue.push(...s.dependsOn);
  }
  return [...paths].sort();
}

/** The branch of one subgraph's work: what the Action turns into one pull request. */
export const subgraphBranch = (rpgName: string, subgraphId: string): string => `${subgraphBranchPrefix(rpgName)}${refSafe(subgraphId)}`;

/** What every subgraph branch of an RPG starts with (`rpg/<name>/`), to fetch or list them together. */
export const subgraphBranchPrefix = (rpgName: string): string => `rpg/${refSafe(rpgName)}/`;

/** The PRD's commit message: "feat: complete <subgraph> (nodes <first>-<last>)". */
export function subgraphCommitMessage(subgraph: PlannedSubgraph): string {
  const first = subgraph.nodes[0] ?? "";
  const last = subgraph.nodes.at(-1) ?? "";
  return `feat: complete ${subgraph.name} (nodes ${first === last ? first : `${first}-${last}`})`;
}

/** The PRD's tag phase4-subgraph-{id}, made unique per run. */
export const subgraphTag = (runId: string, subgraphId: string): string => `rpg/${runId}/${refSafe(subgraphId)}`;

/** The name branches are made of: the RPG's metadata.name, else the folder the RPG is in. */
export function rpgNameOf(rpg: Rpg, rpgPath: string): string {
  const name = rpg.metadata.name;
  return typeof name === "string" && name ? name : basename(dirname(resolve(rpgPath)));
}

/** The branch a run's commits go to. */
export const runBranch = (rpgName: string): string => `rpg-forge/${refSafe(rpgName)}`;
