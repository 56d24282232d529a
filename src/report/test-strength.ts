import type { CheckpointEntry } from "../record/checkpoint.js";
import { killsNone } from "../record/test-strength.js";
import type { Plan } from "../plan/plan.js";
import { code, prose } from "./markdown.js";
import { partOf, percentOf } from "./share.js";

/**
 * The report's Test Strength section (decision 0022): for each node whose tests were measured,
 * how many mutants of its code they killed, and what the survivors changed. Empty when no node
 * was measured.
 */
export function renderTestStrength(plan: Plan, nodes: Readonly<Record<string, CheckpointEntry>>): string[] {
  const measured = plan.order.filter((id) => nodes[id]?.test_strength !== undefined);
  if (measured.length === 0) return [];
  const total = measured.reduce((sum, id) => sum + nodes[id]!.test_strength!.mutants, 0);
  const killed = measured.reduce((sum, id) => sum + nodes[id]!.test_strength!.killed, 0);
  const lines = [
    "## Test Strength",
    "",
    `Each passed node's tests, run against mechanical mutants of its code (a comparison flipped, a constant returned, a branch dropped): ${killed} of ${total} mutants killed (${percentOf(killed, total)}).`,
    "",
    "| Node | Mutants killed | Survivors |",
    "|------|----------------|-----------|",
  ];
  for (const id of measured) {
    const strength = nodes[id]!.test_strength!;
    const flag = killsNone(strength) ? " ⚠️" : "";
    const survivors = strength.survivors.map((s) => prose(s.description, 120)).join("; ") || "none";
    lines.push(`| ${code(id)} | ${partOf(strength.killed, strength.mutants)}${flag} | ${survivors} |`);
  }
  return [...lines, ""];
}

/** The nodes among `ids` whose tests killed none of their mutants: their PR says so. */
export function weakTests(ids: readonly string[], nodes: Readonly<Record<string, CheckpointEntry>>): string[] {
  return ids.filter((id) => {
    const strength = nodes[id]?.test_strength;
    return strength !== undefined && killsNone(strength);
  });
}

/** One line for a pull request: how many mutants of its nodes' code their tests killed; empty when none was measured. */
export function strengthLine(ids: readonly string[], nodes: Readonly<Record<string, CheckpointEntry>>): string[] {
  const measured = ids.flatMap((id) => (nodes[id]?.test_strength ? [nodes[id].test_strength] : []));
  const total = measured.reduce((sum, s) => sum + s.mutants, 0);
  if (total === 0) return [];
  const killed = measured.reduce((sum, s) => sum + s.killed, 0);
  return [
    `**Test strength**: the nodes' tests killed ${killed} of ${total} mechanical mutants of their code (${percentOf(killed, total)}; decision 0022).`,
  ];
}
