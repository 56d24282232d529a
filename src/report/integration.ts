import type { Plan, PlannedSubgraph } from "../plan/plan.js";
import type { Checkpoint } from "../record/checkpoint.js";
import { INTEGRATION_PASS_SHARE, type Integration } from "../record/integration.js";
import { code, prose } from "./markdown.js";
import { partOf } from "./share.js";

const THRESHOLD = `${Math.round(INTEGRATION_PASS_SHARE * 100)}%`;

/** A record's status for people: its figure and verdict, or why it has no figure. */
export function integrationVerdict(record: Integration): string {
  if (record.total === 0) return `⚠️ not validated: ${prose(record.note ?? "no test ran", 300)}`;
  const verdict = record.status === "validated" ? "✅ validated" : `⚠️ not validated (under ${THRESHOLD})`;
  return `${partOf(record.passed, record.total)} passed, ${verdict}`;
}

/** Why a subgraph has no record: its leaves did not all pass, or it was not reached. */
function notRun(subgraph: PlannedSubgraph, plan: Plan, checkpoint: Checkpoint): string {
  const leaves = subgraph.nodes.filter((id) => plan.nodes.get(id)?.node_type === "leaf");
  const notPassed = leaves.filter((id) => checkpoint.nodes[id]?.status !== "passed");
  return notPassed.length > 0 ? `not run: ${notPassed.length} of ${leaves.length} leaves did not pass` : "not run";
}

/** What shipped: how many cases the file holds, and where. */
function shippedCell(record: Integration): string {
  return record.file ? `${record.shipped} in ${code(record.file)}` : "none";
}

/**
 * The report's Integration Tests section (decision 0024): a row per subgraph with leaves, and the
 * failing cases that were left out of the shipped files. Empty when no subgraph has a record.
 */
export function renderIntegration(plan: Plan, checkpoint: Checkpoint): string[] {
  const records = checkpoint.integration ?? {};
  if (Object.keys(records).length === 0) return [];
  const lines = [
    "## Integration Tests",
    "",
    `Tests of each subgraph whose nodes all passed, following the data from its entry nodes to its exit nodes. A subgraph is validated when ${THRESHOLD} of them pass; only the passing tests ship, run again as shipped.`,
    "",
    "| Subgraph | Entries → exits | Result | Shipped |",
    "|----------|-----------------|--------|---------|",
  ];
  const failing: string[] = [];
  for (const subgraph of plan.subgraphs) {
    if (!subgraph.nodes.some((id) => plan.nodes.get(id)?.node_type === "leaf")) continue;
    const record = records[subgraph.id];
    if (!record) {
      lines.push(`| ${code(subgraph.id)} | – | ${notRun(subgraph, plan, checkpoint)} | – |`);
      continue;
    }
    const ends = `${record.entries.map(code).join(", ")} → ${record.exits.map(code).join(", ")}`;
    lines.push(`| ${code(subgraph.id)} | ${ends} | ${integrationVerdict(record)} | ${shippedCell(record)} |`);
    for (const test of record.failing) failing.push(`- ${code(test.name)}: ${prose(test.message, 300)}`);
  }
  if (failing.length > 0) lines.push("", "Failing integration tests (not shipped):", "", ...failing);
  return [...lines, ""];
}

/** One subgraph's integration tests for its pull request: the verdict, what shipped and what failed. Empty without a record. */
export function renderSubgraphIntegration(record: Integration | undefined): string[] {
  if (!record) return [];
  const lines = [`From ${record.entries.map(code).join(", ")} to ${record.exits.map(code).join(", ")}: ${integrationVerdict(record)}.`];
  if (record.file)
    lines.push("", `The ${record.shipped} passing cases ship in ${code(record.file)}; the suite of this pull request runs them.`);
  if (record.failing.length > 0)
    lines.push("", "Failing, left out:", "", ...record.failing.map((t) => `- ${code(t.name)}: ${prose(t.message, 300)}`));
  return lines;
}
