import { testFileLookup } from "../assembly/layout.js";
import { isOurs } from "../assembly/owned-file.js";
import type { Plan } from "../plan/plan.js";
import type { Rpg } from "../rpg/schema.js";
import { readFileAt, refsUnder } from "../workspace/git.js";
import { buildStack, type StackLevel, type StackResult } from "../workspace/stack.js";
import { ownedPaths, subgraphCommitMessage } from "./history.js";
import { subgraphBranch, subgraphBranchPrefix } from "../record/branch-names.js";
import { parseCheckpoint, type Checkpoint } from "./checkpoint.js";
import { ASSEMBLED, CHECKPOINT_PATH, EXPORTED_RPG_PATH } from "./output-paths.js";

/**
 * The stack of PR branches (decision 0012): one level per subgraph with a passed node, in
 * the plan's order, each a snapshot commit on the one before, the first on the base branch.
 */

/** Files a person may have written in their repository before rpg-forge: ours only when they carry our marker. */
const SHARED_WITH_PEOPLE = new Set(["README.md", "pyproject.toml", "requirements.txt", "requirements-dev.txt", "pytest.ini"]);

/**
 * The paths the stack takes from its levels; every other path comes from the base. A file
 * of the set above that the base holds without our marker is the person's, and stays theirs.
 */
export async function stackOwnedPaths(dir: string, base: string, rpg: Rpg): Promise<(path: string) => boolean> {
  const owned = ownedPaths(rpg, testFileLookup(rpg), ASSEMBLED);
  for (const path of SHARED_WITH_PEOPLE) {
    if (!isOurs(await readFileAt(dir, base, path))) owned.delete(path);
  }
  return (path) => owned.has(path);
}

/** The levels of a run: the subgraphs it committed that have a passed node, in merge order. */
export function runLevels(
  plan: Plan,
  rpgName: string,
  commits: readonly { subgraphId: string; sha: string }[],
  hasPassed: (subgraphId: string) => boolean,
): StackLevel[] {
  return commits
    .filter(({ subgraphId }) => hasPassed(subgraphId))
    .map(({ subgraphId, sha }) => ({
      branch: subgraphBranch(rpgName, subgraphId),
      source: sha,
      message: subgraphCommitMessage(plan.subgraphs.find((s) => s.id === subgraphId)!),
    }));
}

export interface Restacked {
  /** The subgraphs still in the stack, in merge order. */
  subgraphs: string[];
  /** The subgraphs whose level the base already holds (merged with any method). */
  merged: string[];
  stack: StackResult;
}

/**
 * Moves the existing PR branches onto the base after some were merged, without generating
 * anything: each level's own files are laid on the new base, so each PR's diff is again
 * only its own. A level is merged once the base holds its checkpoint, or a later level's:
 * every level writes the whole checkpoint, so the base's says how far the merges got.
 */
export async function restackBranches(options: { dir: string; rpg: Rpg; plan: Plan; rpgName: string; base: string }): Promise<Restacked> {
  const { dir, plan, rpgName, base } = options;
  const present = new Set(await refsUnder(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`));
  const existing = plan.subgraphs.filter((s) => present.has(subgraphBranch(rpgName, s.id)));
  const baseCheckpoint = await readFileAt(dir, base, CHECKPOINT_PATH);
  let mergedUpTo = -1;
  for (const [i, subgraph] of existing.entries()) {
    const own = await readFileAt(dir, subgraphBranch(rpgName, subgraph.id), CHECKPOINT_PATH);
    if (own !== undefined && own === baseCheckpoint) mergedUpTo = i;
  }
  const remaining = existing.slice(mergedUpTo + 1);
  const stack = await buildStack({
    dir,
    base,
    levels: remaining.map((s) => ({
      branch: subgraphBranch(rpgName, s.id),
      source: subgraphBranch(rpgName, s.id),
      message: subgraphCommitMessage(s),
    })),
    owned: await stackOwnedPaths(dir, base, options.rpg),
  });
  return { subgraphs: remaining.map((s) => s.id), merged: existing.slice(0, mergedUpTo + 1).map((s) => s.id), stack };
}

/** The branch of the last subgraph, in merge order, that has one: the stack's top, which holds all of it. */
export async function topOfStack(dir: string, plan: Plan, rpgName: string): Promise<string | undefined> {
  const present = new Set(await refsUnder(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`));
  return plan.subgraphs
    .map((s) => subgraphBranch(rpgName, s.id))
    .filter((b) => present.has(b))
    .at(-1);
}

/** The stack's branches by subgraph (levels built and levels held) and its subgraphs in merge order. */
export function stackBranches(plan: Plan, rpgName: string, stack: StackResult): { branches: Map<string, string>; stack: string[] } {
  const inStack = new Set([...stack.levels, ...stack.held].map((l) => l.branch));
  const subgraphs = plan.subgraphs.filter((s) => inStack.has(subgraphBranch(rpgName, s.id))).map((s) => s.id);
  return { branches: new Map(subgraphs.map((id) => [id, subgraphBranch(rpgName, id)])), stack: subgraphs };
}

/** The subgraph whose PR branch this is. */
export function subgraphOfBranch(plan: Plan, rpgName: string, branch: string): string {
  return plan.subgraphs.find((s) => subgraphBranch(rpgName, s.id) === branch)?.id ?? branch;
}

/** The state a branch of ours holds: its checkpoint, and the model its docs/rpg.json names; undefined when it holds no checkpoint. */
export async function stateAt(dir: string, ref: string): Promise<{ checkpoint: Checkpoint; model: string | undefined } | undefined> {
  const text = await readFileAt(dir, ref, CHECKPOINT_PATH);
  if (text === undefined) return undefined;
  const exported = (await readFileAt(dir, ref, EXPORTED_RPG_PATH)) ?? "{}";
  let model: unknown;
  try {
    model = (JSON.parse(exported) as { metadata?: { generation?: { model?: unknown } } }).metadata?.generation?.model;
  } catch {
    model = undefined;
  }
  return { checkpoint: parseCheckpoint(text, `${ref}:${CHECKPOINT_PATH}`), model: typeof model === "string" ? model : undefined };
}
