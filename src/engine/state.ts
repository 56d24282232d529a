import { createHash } from "node:crypto";
import { canonicalJson } from "../llm/provider.js";
import type { Plan } from "../plan/plan.js";
import { compareIds } from "../rpg/ids.js";
import type { RpgNode } from "../rpg/schema.js";
import type { Checkpoint, CheckpointEntry } from "./checkpoint.js";

/** Hash of a node as planned, so that resume notices a node whose specification changed. */
export function specHash(node: RpgNode): string {
  return createHash("sha256").update(canonicalJson(node)).digest("hex");
}

/** A fresh checkpoint: every node of the plan pending. */
export function newCheckpoint(plan: Plan, runId: string, rpgSha256: string, now: string): Checkpoint {
  const nodes: Record<string, CheckpointEntry> = {};
  for (const id of plan.order) nodes[id] = pendingEntry(plan.nodes.get(id)!, now);
  return { version: 1, run_id: runId, rpg_sha256: rpgSha256, created_at: now, updated_at: now, nodes };
}

/**
 * Brings a checkpoint in line with the plan before a resume: within `range` (the
 * nodes this run will visit), passed nodes stay passed unless their specification
 * changed, and failed, in_progress and skipped nodes go back to pending to be tried
 * again. New nodes are added; nodes no longer in the RPG are dropped. Returns the ids
 * it reset or dropped for the edges to report.
 */
export function prepareResume(
  checkpoint: Checkpoint,
  plan: Plan,
  range: readonly string[],
  runId: string,
  now: string,
): { specChanged: string[]; dropped: string[] } {
  const specChanged: string[] = [];
  const dropped = Object.keys(checkpoint.nodes).filter((id) => !plan.nodes.has(id));
  for (const id of dropped) delete checkpoint.nodes[id];
  const inRange = new Set(range);
  for (const id of plan.order) {
    const node = plan.nodes.get(id)!;
    const entry = checkpoint.nodes[id];
    if (!entry) {
      checkpoint.nodes[id] = pendingEntry(node, now);
      continue;
    }
    entry.subgraph_id = node.subgraph_id;
    entry.node_type = node.node_type;
    if (!inRange.has(id)) continue;
    const hash = specHash(node);
    const changed = entry.status === "passed" && entry.spec_sha256 !== undefined && entry.spec_sha256 !== hash;
    if (changed) specChanged.push(id);
    if (entry.status !== "passed" || changed) {
      entry.status = "pending";
      entry.spec_sha256 = hash;
      delete entry.blocked_by;
    }
  }
  checkpoint.run_id = runId;
  checkpoint.updated_at = now;
  return { specChanged, dropped };
}

/**
 * The failed nodes that keep `id` from running: a dependency that failed names
 * itself, one that was skipped passes on its own blockers, and one that never ran
 * (pending) names itself, since it is the reason too.
 */
export function blockersOf(id: string, plan: Plan, checkpoint: Checkpoint): string[] {
  const blockers = new Set<string>();
  for (const dep of plan.dependencies.get(id) ?? []) {
    const entry = checkpoint.nodes[dep];
    if (entry?.status === "passed") continue;
    if (entry?.status === "skipped" && entry.blocked_by?.length) for (const b of entry.blocked_by) blockers.add(b);
    else blockers.add(dep);
  }
  return [...blockers].sort(compareIds);
}

/** Marks every node downstream of a failed one skipped (passed ones keep their code and stay passed). */
export function skipDownstream(failedId: string, plan: Plan, checkpoint: Checkpoint, now: string): string[] {
  const skipped: string[] = [];
  const seen = new Set<string>([failedId]);
  const queue = [...(plan.dependents.get(failedId) ?? [])];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    if (seen.has(id)) continue;
    seen.add(id);
    const entry = checkpoint.nodes[id];
    if (!entry || entry.status === "passed") continue;
    entry.status = "skipped";
    entry.timestamp = now;
    entry.blocked_by = [...new Set([...(entry.blocked_by ?? []), failedId])].sort(compareIds);
    entry.failure_reason = `skipped: depends on failed node ${entry.blocked_by.join(", ")}`;
    skipped.push(id);
    queue.push(...(plan.dependents.get(id) ?? []));
  }
  return skipped;
}

/** A node's entry before anything was tried. */
export function pendingEntry(node: RpgNode, now: string): CheckpointEntry {
  return {
    status: "pending",
    timestamp: now,
    test_results: { passed: 0, failed: 0 },
    retry_count: 0,
    subgraph_id: node.subgraph_id,
    node_type: node.node_type,
    spec_sha256: specHash(node),
    attempts: [],
  };
}
