import { testFileLookup } from "../assembly/layout.js";
import type { Plan } from "../plan/plan.js";
import type { Rpg } from "../rpg/schema.js";
import { checkoutWithFiles, commitFiles, filesAt, readFileAt, refsUnder } from "../workspace/git.js";
import { fetchRefs, type RemoteAuth } from "../workspace/remote.js";
import { join } from "node:path";
import { mergeCheckpoints, type CheckpointPart } from "./checkpoint-merge.js";
import { parseCheckpoint, writeCheckpoint, type Checkpoint } from "./checkpoint.js";
import { CHECKPOINT_PATH } from "./generate.js";
import { ownedPaths, subgraphBranch, subgraphBranchPrefix } from "./history.js";

/**
 * Matrix mode: a graph generated one subgraph per job, each on its own runner. What
 * the jobs share is the subgraph branches (`rpg/<name>/<subgraph>`), each carrying
 * its code, the code it needs and a checkpoint in which its own nodes are current.
 */

export interface SubgraphBranches {
  /** Subgraph id to branch, for the subgraphs that have one in this repository. */
  branches: Map<string, string>;
  /** Their checkpoints merged; undefined when no branch carries one. */
  checkpoint: Checkpoint | undefined;
}

/** Brings origin's subgraph branches of an RPG in as local branches (what earlier runs and waves pushed). */
export async function fetchSubgraphBranches(dir: string, rpgName: string, auth?: RemoteAuth): Promise<void> {
  const glob = `refs/heads/${subgraphBranchPrefix(rpgName)}*`;
  await fetchRefs(dir, "origin", [`+${glob}:${glob}`], auth);
}

/** The local subgraph branches of an RPG and their checkpoints, merged. */
export async function readSubgraphBranches(dir: string, plan: Plan, rpgName: string, only?: readonly string[]): Promise<SubgraphBranches> {
  const present = new Set(await refsUnder(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`));
  const branches = new Map<string, string>();
  const parts: CheckpointPart[] = [];
  for (const subgraph of plan.subgraphs) {
    const branch = subgraphBranch(rpgName, subgraph.id);
    if (!present.has(branch) || (only && !only.includes(subgraph.id))) continue;
    branches.set(subgraph.id, branch);
    const text = await readFileAt(dir, branch, CHECKPOINT_PATH);
    if (text !== undefined) parts.push({ subgraphId: subgraph.id, checkpoint: parseCheckpoint(text, `${branch}:${CHECKPOINT_PATH}`) });
  }
  return { branches, checkpoint: mergeCheckpoints(parts) };
}

/**
 * Prepares a fresh checkout for generating `subgraphs` alone: the work tree becomes
 * the branch of the first subgraph they need, with rpg-forge's files of the other
 * needed branches laid over it and the checkpoints merged, committed on `runBranch`
 * so that the run starts clean. A needed subgraph without a branch (none of its nodes
 * passed) is returned, so the edge can say that the nodes needing it will be skipped.
 */
export async function combineNeededBranches(
  dir: string,
  rpg: Rpg,
  plan: Plan,
  rpgName: string,
  runBranch: string,
  subgraphs: readonly string[],
): Promise<{ combined: string[]; missing: string[] }> {
  const needed = [...new Set(plan.subgraphs.filter((s) => subgraphs.includes(s.id)).flatMap((s) => s.dependsOn))].filter(
    (id) => !subgraphs.includes(id),
  );
  const { branches, checkpoint } = await readSubgraphBranches(dir, plan, rpgName, needed);
  const missing = needed.filter((id) => !branches.has(id));
  const [first, ...others] = [...branches.values()];
  if (!first) return { combined: [], missing };
  const ours = ownedPaths(rpg, testFileLookup(rpg), ["pytest.ini"]);
  const overlays = await Promise.all(
    others.map(async (ref) => ({ ref, paths: (await filesAt(dir, ref)).filter((path) => ours.has(path)) })),
  );
  await checkoutWithFiles(dir, runBranch, first, overlays);
  if (checkpoint) await writeCheckpoint(join(dir, CHECKPOINT_PATH), checkpoint);
  await commitFiles(
    dir,
    [...new Set([...overlays.flatMap((o) => o.paths), CHECKPOINT_PATH])],
    `chore: the code of ${[...branches.keys()].join(", ")}, for ${subgraphs.join(", ")}`,
  );
  return { combined: [...branches.keys()], missing };
}
