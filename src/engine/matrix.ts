import { join } from "node:path";
import { testFileLookup } from "../assembly/layout.js";
import type { Plan } from "../plan/plan.js";
import { normalizePath } from "../rpg/paths.js";
import type { Rpg } from "../rpg/schema.js";
import { checkoutBranchAt, filesAt, readFileAt, refsUnder, takeFiles } from "../workspace/git.js";
import { commitFiles } from "../workspace/git-commit.js";
import { fetchRefs, type RemoteAuth } from "../workspace/remote.js";
import { mergeCheckpoints, type CheckpointPart } from "./checkpoint-merge.js";
import { checkpointText } from "../record/checkpoint.js";
import { parseCheckpoint, writeCheckpoint, type Checkpoint } from "./checkpoint.js";
import { ownedPaths } from "./history.js";
import { subgraphBranchPrefix, workBranch, workBranchPrefix } from "../record/branch-names.js";
import { CHECKPOINT_PATH, PYTEST_INI } from "./output-paths.js";

/**
 * Matrix mode: a graph generated one subgraph per job, each on its own runner, wave by
 * wave. What the jobs share is their work branches (`rpg-work/<name>/<subgraph>`), each
 * carrying its code, the code it built on and a checkpoint in which its own nodes are
 * current. The report job puts them together and makes the stack of PR branches.
 */

export interface WorkBranches {
  /** Subgraph id to branch, for the subgraphs that have one in this repository. */
  branches: Map<string, string>;
  /** Their checkpoints merged; undefined when no branch carries one. */
  checkpoint: Checkpoint | undefined;
}

/** Brings origin's PR branches of an RPG in as local branches (what earlier runs pushed): the stack a run continues. */
export async function fetchSubgraphBranches(dir: string, rpgName: string, auth?: RemoteAuth): Promise<void> {
  await fetchGlob(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}*`, auth);
}

/** Brings origin's matrix work branches of an RPG in as local branches (what the earlier waves pushed). */
export async function fetchWorkBranches(dir: string, rpgName: string, auth?: RemoteAuth): Promise<void> {
  await fetchGlob(dir, `refs/heads/${workBranchPrefix(rpgName)}*`, auth);
}

const fetchGlob = (dir: string, glob: string, auth: RemoteAuth | undefined): Promise<void> =>
  fetchRefs(dir, "origin", [`+${glob}:${glob}`], auth);

/** The local work branches of an RPG and their checkpoints, merged. */
export async function readWorkBranches(dir: string, plan: Plan, rpgName: string, only?: readonly string[]): Promise<WorkBranches> {
  const present = new Set(await refsUnder(dir, `refs/heads/${workBranchPrefix(rpgName)}`));
  const branches = new Map<string, string>();
  const parts: CheckpointPart[] = [];
  for (const subgraph of plan.subgraphs) {
    const branch = workBranch(rpgName, subgraph.id);
    if (!present.has(branch) || (only && !only.includes(subgraph.id))) continue;
    branches.set(subgraph.id, branch);
    const text = await readFileAt(dir, branch, CHECKPOINT_PATH);
    if (text !== undefined) parts.push({ subgraphId: subgraph.id, checkpoint: parseCheckpoint(text, `${branch}:${CHECKPOINT_PATH}`) });
  }
  return { branches, checkpoint: mergeCheckpoints(parts) };
}

/**
 * What a subgraph's job builds on: the subgraphs it depends on, and every earlier one (in
 * the plan's order) that has code in one of its modules. Two jobs must never write one
 * module side by side: putting their work together would keep one job's copy of the file.
 */
export function neededFor(plan: Plan, rpg: Rpg, subgraphId: string): string[] {
  const filesOf = new Map<string, Set<string>>();
  for (const node of rpg.nodes) {
    if (node.node_type !== "leaf") continue;
    const files = filesOf.get(node.subgraph_id) ?? new Set<string>();
    files.add(normalizePath(node.file_path));
    filesOf.set(node.subgraph_id, files);
  }
  const at = plan.subgraphs.findIndex((s) => s.id === subgraphId);
  const subgraph = plan.subgraphs[at];
  if (!subgraph) return [];
  const mine = filesOf.get(subgraphId) ?? new Set<string>();
  const sharing = plan.subgraphs.slice(0, at).filter((s) => [...(filesOf.get(s.id) ?? [])].some((f) => mine.has(f)));
  return [...new Set([...subgraph.dependsOn, ...sharing.map((s) => s.id)])];
}

/**
 * The waves of matrix mode: each subgraph after everything it builds on (neededFor), so
 * the jobs of one wave can run side by side. Subgraphs in a dependency cycle come last, in
 * one group, as the plan has them.
 */
export function matrixWaves(plan: Plan, rpg: Rpg): string[][] {
  const waveOf = new Map<string, number>();
  const cyclic: string[] = [];
  const byWave: string[][] = [];
  for (const subgraph of plan.subgraphs) {
    if (subgraph.wave < 0) {
      cyclic.push(subgraph.id);
      continue;
    }
    // plan.subgraphs lists a subgraph after all it depends on, and neededFor adds only earlier ones.
    const wave = Math.max(-1, ...neededFor(plan, rpg, subgraph.id).map((id) => waveOf.get(id) ?? -1)) + 1;
    waveOf.set(subgraph.id, wave);
    (byWave[wave] ??= []).push(subgraph.id);
  }
  return cyclic.length > 0 ? [...byWave, [cyclic.join(" ")]] : byWave;
}

/**
 * Prepares a fresh checkout for generating `subgraphs` alone: the work tree becomes
 * `runBranch` at a commit on the work branch of the first subgraph they need, with
 * rpg-forge's files of the other needed branches laid over it (those branches its further
 * parents) and the checkpoints merged, so that the run starts clean. A needed subgraph
 * without a branch (none of its nodes passed) is returned, so the edge can say that the
 * nodes needing it will be skipped.
 */
export async function combineNeededBranches(
  dir: string,
  rpg: Rpg,
  plan: Plan,
  rpgName: string,
  runBranch: string,
  subgraphs: readonly string[],
): Promise<{ combined: string[]; missing: string[] }> {
  const needed = [...new Set(subgraphs.flatMap((id) => neededFor(plan, rpg, id)))].filter((id) => !subgraphs.includes(id));
  const { branches, checkpoint } = await readWorkBranches(dir, plan, rpgName, needed);
  const missing = needed.filter((id) => !branches.has(id));
  const [first, ...others] = [...branches.values()];
  if (!first) return { combined: [], missing };
  const ours = ownedPaths(rpg, testFileLookup(rpg), [PYTEST_INI]);
  const ids = [...branches.keys()];
  const owner = pathOwners(rpg, ids);
  // A module or test file comes from the branch of the subgraph that wrote it last, never from one that only carries it.
  const overlays = await Promise.all(
    others.map(async (ref, i) => ({
      ref,
      paths: (await filesAt(dir, ref)).filter((path) => ours.has(path) && (owner.get(path) ?? ids[i + 1]) === ids[i + 1]),
    })),
  );
  const combined = await commitFiles(dir, {
    parent: first,
    merging: overlays,
    files: new Map(checkpoint ? [[CHECKPOINT_PATH, checkpointText(checkpoint)]] : []),
    message: `chore: the code of ${[...branches.keys()].join(", ")}, for ${subgraphs.join(", ")}`,
  });
  await checkoutBranchAt(dir, runBranch, combined ?? first);
  return { combined: [...branches.keys()], missing };
}

/**
 * The report job's start: the work of every job of the run laid over the base, uncommitted,
 * with their checkpoints merged, as a run finds the open PRs' work: the run that follows
 * then commits each subgraph's snapshot on the base and stacks them.
 */
export async function layWorkBranchesOver(dir: string, rpg: Rpg, plan: Plan, rpgName: string): Promise<string[]> {
  const { branches, checkpoint } = await readWorkBranches(dir, plan, rpgName);
  const ours = ownedPaths(rpg, testFileLookup(rpg), [PYTEST_INI]);
  const owner = pathOwners(rpg, [...branches.keys()]);
  for (const [id, branch] of branches) await takeFiles(dir, branch, (path) => ours.has(path) && (owner.get(path) ?? id) === id);
  if (checkpoint) await writeCheckpoint(join(dir, CHECKPOINT_PATH), checkpoint);
  return [...branches.keys()];
}

/**
 * For each module and test file of the combined subgraphs, the one whose branch has the file's
 * last word: the latest, in the plan's order, with a node in it. Every work branch carries all
 * it built on, so an unrelated later branch holds an older copy of a module it never wrote,
 * which must not replace the copy of the subgraph that wrote it last.
 */
function pathOwners(rpg: Rpg, subgraphs: readonly string[]): Map<string, string> {
  const rank = new Map(subgraphs.map((id, i) => [id, i]));
  const testFileOf = testFileLookup(rpg);
  const owner = new Map<string, string>();
  for (const node of rpg.nodes) {
    if (node.node_type !== "leaf" || !rank.has(node.subgraph_id)) continue;
    for (const path of [normalizePath(node.file_path), testFileOf(node.id)]) {
      const held = owner.get(path);
      if (held === undefined || rank.get(held)! < rank.get(node.subgraph_id)!) owner.set(path, node.subgraph_id);
    }
  }
  return owner;
}
