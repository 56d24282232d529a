import * as core from "@actions/core";
import { stackBranches, subgraphOfBranch } from "../engine/pr-stack.js";
import type { Plan } from "../plan/plan.js";
import { renderHeldComment } from "../report/pull-request.js";
import { runTagPrefix, subgraphTag } from "../record/branch-names.js";
import { refsUnder } from "../workspace/git.js";
import { pushBranches, pushRefs, type RemoteAuth } from "../workspace/remote.js";
import type { StackResult } from "../workspace/stack.js";

export interface PushedStack {
  /** The stack's branches by subgraph, held ones included: each has a PR. */
  branches: Map<string, string>;
  /** Its subgraphs in merge order. */
  stack: string[];
  /** The comment for each held level's PR, by subgraph. */
  held: Map<string, string>;
  /** The commit each level that is not held holds now, by subgraph: where its check run goes. */
  heads: Map<string, string>;
}

/**
 * Pushes the levels that changed, all or none, each under a lease on what origin had when
 * the run fetched it: a branch someone moved since is refused, never overwritten.
 */
export async function pushStack(
  dir: string,
  plan: Plan,
  rpgName: string,
  built: StackResult,
  remoteHeads: ReadonlyMap<string, string>,
  auth: RemoteAuth | undefined,
): Promise<PushedStack> {
  const { branches, stack } = stackBranches(plan, rpgName, built);
  const held = new Map<string, string>();
  for (const level of built.held) {
    held.set(subgraphOfBranch(plan, rpgName, level.branch), renderHeldComment(level.branch, level.reason, level.head));
    const why = level.reason === "edited" ? "a person pushed to it" : "a branch below it in the stack has a person's commits";
    core.warning(`${level.branch} was left as it is: ${why}`);
  }
  const changed = built.levels.filter((l) => l.change !== "unchanged");
  await pushBranches(
    dir,
    "origin",
    changed.map((l) => ({ branch: l.branch, sha: l.sha, expected: remoteHeads.get(l.branch) })),
    auth,
  );
  const heads = new Map(built.levels.map((l) => [subgraphOfBranch(plan, rpgName, l.branch), l.sha]));
  return { branches, stack, held, heads };
}

/**
 * The record of a run, in one push: its tags of these subgraphs (rpg/<run>/<subgraph>) and
 * the branches that belong to this run alone (the run branch, or a matrix job's work
 * branches), replaced whatever they held before.
 */
export async function pushRunRecord(
  dir: string,
  runId: string,
  subgraphIds: readonly string[],
  branches: readonly string[],
  auth: RemoteAuth | undefined,
): Promise<void> {
  const own = new Set(subgraphIds.map((id) => subgraphTag(runId, id)));
  const tags = (await refsUnder(dir, `refs/tags/${runTagPrefix(runId)}`)).filter((tag) => own.has(tag));
  await pushRefs(
    dir,
    "origin",
    [...branches.map((b) => `+refs/heads/${b}:refs/heads/${b}`), ...tags.map((t) => `refs/tags/${t}:refs/tags/${t}`)],
    auth,
  );
}
