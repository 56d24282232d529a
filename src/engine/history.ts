import { integrationTestFiles, packageDirectories } from "../assembly/layout.js";
import type { PlannedSubgraph } from "../plan/plan.js";
import { normalizePath } from "../rpg/paths.js";
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
  for (const path of integrationTestFiles(rpg).values()) paths.add(path);
  return paths;
}

/** A subgraph is complete when none of its nodes is still to be generated. */
export function isComplete(subgraph: PlannedSubgraph, checkpoint: Checkpoint): boolean {
  return subgraph.nodes.every((id) => {
    const status = checkpoint.nodes[id]?.status;
    return status === "passed" || status === "failed" || status === "skipped";
  });
}

/** The PRD's commit message: "feat: complete <subgraph> (nodes <first>-<last>)". */
export function subgraphCommitMessage(subgraph: PlannedSubgraph): string {
  const first = subgraph.nodes[0] ?? "";
  const last = subgraph.nodes.at(-1) ?? "";
  return `feat: complete ${subgraph.name} (nodes ${first === last ? first : `${first}-${last}`})`;
}
