import type { Checkpoint, CheckpointEntry, NodeStatus } from "../record/checkpoint.js";
import type { Plan, PlannedSubgraph } from "../plan/plan.js";
import { compareIds } from "../rpg/ids.js";
import { PR_BRANCH_ROOT } from "../record/branch-names.js";
import { COMMENT_LIMIT, fitToLimit } from "./fit-limit.js";
import { clip, code, count, details, fenced, prose, row } from "./markdown.js";
import { RUN_DETAILS_NOTE } from "./generation-report.js";
import { renderMermaid } from "./mermaid.js";
import { renderDiagnoses } from "./diagnoses.js";
import { strengthLine, weakTests } from "./test-strength.js";
import { renderCoverage } from "./coverage.js";
import { renderSubgraphIntegration } from "./integration.js";
import { renderStandingObjections } from "./reviews.js";

export interface DependencyPr {
  subgraphId: string;
  number: number;
  url: string;
}

/**
 * What a PR's title, body and comments are rendered from. It holds nothing that changes on every
 * run (run id, clock, elapsed time), so a rerun that changes nothing renders the same text and
 * writes nothing on GitHub (issue 13); those live in docs/generation_report.md and the job summary.
 */
export interface SubgraphPrInput {
  plan: Plan;
  checkpoint: Checkpoint;
  subgraphId: string;
  /** Path of rpg.json in the repository. */
  rpgPath: string;
  /** PRs of the subgraphs this one depends on (directly), when they have one. */
  dependencyPrs: DependencyPr[];
  /** The base branch this PR targets (the repository's base branch, or the branch of the PR before it in the merge order). */
  baseBranch: string;
  /**
   * The PRs of the run in the order they are merged (the stack, decision 0012), this one among
   * them; each with its number once it has one. Absent when the PRs are not stacked (matrix mode).
   */
  mergeOrder?: MergeOrderEntry[] | undefined;
  /** The issue that asked for the run (the Action's `issue` input), which the body links back to. */
  issue?: number | undefined;
}

export interface MergeOrderEntry {
  subgraphId: string;
  number?: number | undefined;
}

const STATUS: Record<NodeStatus, string> = {
  passed: "✅ passed",
  failed: "❌ failed",
  skipped: "⏭️ skipped",
  in_progress: "🔄 in progress",
  pending: "⏳ pending",
};

/** "rpg-forge: <subgraph name> (7/9 nodes pass)"; only leaves count, as in the run summary. */
export function renderPrTitle(input: SubgraphPrInput): string {
  const { subgraph, leaves } = scopeOf(input);
  const c = countsOf(leaves, input.checkpoint);
  // GitHub cuts titles at 256 characters; the counts must survive.
  return `rpg-forge: ${clip(subgraph.name.replace(/\s+/g, " ").trim(), 200)} (${c.passed}/${c.total} nodes pass)`;
}

/** The PR body: what the subgraph is, its nodes and their status, what it depends on, and a chart of it. */
export function renderPrBody(input: SubgraphPrInput, limit = COMMENT_LIMIT): string {
  const { plan, checkpoint } = input;
  const { subgraph, leaves } = scopeOf(input);
  const c = countsOf(leaves, checkpoint);
  const files = new Set(leaves.map((id) => plan.nodes.get(id)?.file_path ?? ""));
  const lines = [
    `## ${prose(subgraph.name)}`,
    "",
    `Subgraph ${code(subgraph.id)} of the Repository Planning Graph ${code(input.rpgPath)}: ` +
      `${plural(leaves.length, "node")} in ${plural(files.size, "file")}, ${c.passed} of ${c.total} passing their tests.`,
  ];
  if (subgraph.description) lines.push("", `> ${prose(subgraph.description)}`);
  if (input.issue !== undefined) lines.push("", `Requested in #${input.issue}.`);
  const deps = dependencyLines(input, subgraph);
  if (deps.length > 0) lines.push("", "**Depends on**", "", ...deps);
  if (input.mergeOrder) {
    lines.push("", ...mergeOrderLines(input, input.mergeOrder));
  } else if (subgraph.dependsOn.length > 0 && input.baseBranch.startsWith(PR_BRANCH_ROOT)) {
    lines.push(
      "",
      `**Stacked:** this pull request targets ${code(input.baseBranch)}, the branch of a subgraph it depends on, ` +
        "so its diff shows only this subgraph's changes. Merge the pull requests above first.",
    );
  }
  lines.push("", "| Node | Symbol | File | Status | Debug iterations | Tests |", "|---|---|---|---|---|---|");
  for (const id of leaves) {
    const entry = checkpoint.nodes[id];
    const node = plan.nodes.get(id);
    lines.push(
      row([code(id), code(node?.name ?? "?"), code(node?.file_path ?? "?"), STATUS[entry?.status ?? "pending"], ...results(entry)]),
    );
  }
  lines.push("", fenced(subgraphChart(plan, subgraph, checkpoint).trimEnd(), "mermaid"));
  lines.push("", "---", "", `RPG ${code(input.rpgPath)} · base ${code(input.baseBranch)}`);
  return fitToLimit(`${lines.join("\n")}\n`, limit);
}

/**
 * The run report for one subgraph's PR: its nodes with their results, and the whole run's counts.
 * No run id, timing or token count: timings change on every run and tokens add up with every retry,
 * so they would edit the comment of every PR on a rerun that changed nothing; the job summary and
 * docs/generation_report.md have them.
 */
export function renderReportComment(input: SubgraphPrInput & { model: string }, limit = COMMENT_LIMIT): string {
  const { plan, checkpoint } = input;
  const { subgraph, leaves } = scopeOf(input);
  const everyLeaf = plan.order.filter((id) => isLeaf(input, id));
  const lines = [
    `### rpg-forge report: ${prose(subgraph.name)}`,
    "",
    `Model ${code(input.model)} · RPG ${code(input.rpgPath)}`,
    "",
    "| Scope | Nodes | Passed | Failed | Skipped | Pass rate |",
    "|---|---|---|---|---|---|",
    countRow(`Subgraph ${code(subgraph.id)}`, countsOf(leaves, checkpoint)),
    countRow("Whole run", countsOf(everyLeaf, checkpoint)),
    "",
    "_Pass rate: passed nodes of those generated (passed + failed); skipped nodes were never tried._",
    "",
    ...renderNodeTable(input, leaves),
  ];
  lines.push("", RUN_DETAILS_NOTE);
  const integration = renderSubgraphIntegration(checkpoint.integration?.[subgraph.id]);
  if (integration.length > 0) lines.push("", "#### Integration tests", "", ...integration);
  const objections = renderStandingObjections(leaves, checkpoint.nodes);
  if (objections.length > 0) lines.push("", "#### ⚠️ Review objections not resolved", "", ...objections);
  const coverage = renderCoverage(leaves, checkpoint.nodes);
  if (coverage.length > 0) lines.push("", "#### Coverage of each node's code by its own tests", "", ...coverage);
  const strength = strengthLine(leaves, checkpoint.nodes);
  if (strength.length > 0) lines.push("", ...strength);
  const weak = weakTests(leaves, checkpoint.nodes);
  if (weak.length > 0) {
    lines.push("", "#### ⚠️ Tests that catch no mutant", "");
    for (const id of weak) {
      const strength = checkpoint.nodes[id]!.test_strength!;
      const what = strength.survivors.map((s) => prose(s.description, 120)).join("; ");
      lines.push(
        `- ${code(id)} (${code(plan.nodes.get(id)?.name ?? "?")}): its tests still pass with each of ${strength.mutants} mutants of its code (${what}). Review them before merging.`,
      );
    }
  }
  const skipped = leaves.filter((id) => checkpoint.nodes[id]?.status === "skipped");
  if (skipped.length > 0) {
    lines.push("", "#### Skipped nodes", "");
    for (const id of skipped) {
      const entry = checkpoint.nodes[id]!;
      const why = entry.blocked_by?.length
        ? `blocked by ${entry.blocked_by.map(code).join(", ")}`
        : prose(entry.failure_reason ?? "no reason recorded");
      lines.push(`- ${code(id)} (${code(plan.nodes.get(id)?.name ?? "?")}): ${why}`);
    }
  }
  return fitToLimit(`${lines.join("\n")}\n`, limit);
}

/** One failed node for the people who fix it: why it failed, the evidence (collapsed) and how to retry it. */
export function renderFailedNodeComment(input: SubgraphPrInput, nodeId: string, retryCommand: string, limit = COMMENT_LIMIT): string {
  const entry = input.checkpoint.nodes[nodeId];
  const node = input.plan.nodes.get(nodeId);
  const lines = [
    `### ❌ Node ${code(nodeId)} failed: ${code(node?.name ?? "?")}`,
    "",
    `- **File**: ${code(node?.file_path ?? "?")}`,
    `- **Status**: ${STATUS[entry?.status ?? "pending"]}`,
    `- **Reason**: ${prose(entry?.failure_reason ?? "no reason recorded")}`,
    `- **Debug iterations**: ${entry?.retry_count ?? 0}`,
    `- **Tests (last attempt)**: ${entry ? `${entry.test_results.passed} passed, ${entry.test_results.failed} failed` : "–"}`,
  ];
  const blocked = input.plan.order.filter((id) => input.checkpoint.nodes[id]?.blocked_by?.includes(nodeId));
  if (blocked.length > 0) lines.push(`- **Skipped because of it**: ${blocked.map(code).join(", ")}`);
  const context = entry?.failure_context;
  if (!context) {
    lines.push("", "_No failure context was recorded for this node, so there are no test messages, output or attempts to show._");
  } else {
    const tests = context.failingTests.map((t) => `${t.name}\n${t.message.replace(/^/gm, "    ")}`.trimEnd()).join("\n\n");
    const trail = context.attempts.map((a) => `- **${prose(a.label, 100)}**: ${prose(a.tried)} → ${prose(a.outcome)}`);
    lines.push(
      ...details(`Failing tests (${context.failingTests.length})`, [fenced(tests || "(none recorded)")]),
      ...details("pytest output (end)", [fenced(withoutTimings(context.output) || "(no output)", "text")]),
      ...(entry.diagnoses?.length ? details(`Diagnosis votes (${entry.diagnoses.length})`, renderDiagnoses(entry.diagnoses)) : []),
      ...details(`Attempts (${context.attempts.length})`, trail.length > 0 ? trail : ["(none)"]),
      ...details("Last attempted code", [context.lastCode ? fenced(context.lastCode, "python") : "(no code was proposed)"]),
    );
  }
  lines.push("", "**Retry this node**:", "", fenced(retryCommand, "sh"));
  return fitToLimit(`${lines.join("\n")}\n`, limit);
}

/** Replaces a failed-node comment once a rerun passes the node. */
export function renderPassedAgainComment(input: SubgraphPrInput, nodeId: string): string {
  const entry = input.checkpoint.nodes[nodeId];
  const node = input.plan.nodes.get(nodeId);
  const tests = entry ? `, ${plural(entry.test_results.passed, "test")} passing` : "";
  return [
    `### ✅ Node ${code(nodeId)} passes now: ${code(node?.name ?? "?")}`,
    "",
    `${code(node?.file_path ?? "?")} passed after ${plural(entry?.retry_count ?? 0, "debug iteration")}${tests}.`,
    "The failure report that was here is resolved.",
    "",
  ].join("\n");
}

/**
 * pytest's closing tally ("1 failed, 3 passed in 0.02s") without its time, which differs on
 * every run: the comment must read the same when the code and its results are the same.
 */
export function withoutTimings(output: string): string {
  return output.replace(PYTEST_TALLY, "$1$2");
}

const PYTEST_TALLY = /^((?:=+ )?(?:\d+ [a-z]+(?:, \d+ [a-z]+)*|no tests ran)) in \d+(?:\.\d+)?s(?: \(\d+:\d{2}:\d{2}\))?( =+)?$/gm;

/**
 * The table of a subgraph's nodes and their results, as the report comment shows it; with
 * `reasons`, a column of why each failed or skipped node did not pass (the check run's summary).
 */
export function renderNodeTable(input: SubgraphPrInput, leaves: readonly string[], { reasons = false } = {}): string[] {
  const lines = [
    `| Node | Symbol | Status | Debug iterations | Tests (last run) |${reasons ? " Reason |" : ""}`,
    `|---|---|---|---|---|${reasons ? "---|" : ""}`,
  ];
  for (const id of leaves) {
    const entry = input.checkpoint.nodes[id];
    const cells = [code(id), code(input.plan.nodes.get(id)?.name ?? "?"), STATUS[entry?.status ?? "pending"], ...results(entry)];
    if (reasons) cells.push(reasonOf(entry));
    lines.push(row(cells));
  }
  return lines;
}

/** Why a node did not pass, as inert Markdown; a dash for one that passed or was never tried. */
function reasonOf(entry: CheckpointEntry | undefined): string {
  if (entry?.status === "failed") return prose(entry.failure_reason ?? "no reason recorded", 300);
  if (entry?.status === "skipped")
    return entry.blocked_by?.length ? `blocked by ${entry.blocked_by.map(code).join(", ")}` : prose(entry.failure_reason ?? "–", 300);
  return "–";
}

/** The subgraph a PR is for, and its leaves (the nodes that count) in the plan's order. */
export function scopeOf(input: SubgraphPrInput): { subgraph: PlannedSubgraph; leaves: string[] } {
  const subgraph = input.plan.subgraphs.find((s) => s.id === input.subgraphId) ?? {
    id: input.subgraphId,
    name: input.subgraphId,
    nodes: [],
    dependsOn: [],
    wave: -1,
  };
  return { subgraph, leaves: subgraph.nodes.filter((id) => isLeaf(input, id)) };
}

/** Composite nodes are scaffolding that passes by itself; like the run summary, only leaves count. */
const isLeaf = (input: SubgraphPrInput, id: string): boolean =>
  (input.plan.nodes.get(id)?.node_type ?? input.checkpoint.nodes[id]?.node_type) !== "composite";

export interface Counts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** How many of these nodes passed, failed and were skipped. */
export function countsOf(ids: readonly string[], checkpoint: Checkpoint): Counts {
  const c: Counts = { total: ids.length, passed: 0, failed: 0, skipped: 0 };
  for (const id of ids) {
    const status = checkpoint.nodes[id]?.status;
    if (status === "passed" || status === "failed" || status === "skipped") c[status]++;
  }
  return c;
}

function countRow(scope: string, c: Counts): string {
  const rate = c.passed + c.failed === 0 ? "N/A" : `${Math.round((c.passed / (c.passed + c.failed)) * 100)}%`;
  return row([scope, String(c.total), String(c.passed), String(c.failed), String(c.skipped), rate]);
}

/** Debug iterations and test results, for nodes that got that far. */
function results(entry: CheckpointEntry | undefined): [string, string] {
  if (entry?.status !== "passed" && entry?.status !== "failed") return ["–", "–"];
  return [String(entry.retry_count), `${entry.test_results.passed} passed, ${entry.test_results.failed} failed`];
}

/**
 * Where this PR stands in the merge order. Merged in this order, with any merge method, the
 * PRs give the whole package; each targets the branch of the one before it, so its diff is
 * only its own, and rpg-forge's next run retargets the rest once one is merged.
 */
function mergeOrderLines(input: SubgraphPrInput, order: readonly MergeOrderEntry[]): string[] {
  const at = order.findIndex((e) => e.subgraphId === input.subgraphId);
  const name = (e: MergeOrderEntry) => `${e.number === undefined ? "" : `#${e.number} `}${code(e.subgraphId)}`;
  const steps = order.map((e, i) => (i === at ? `**${name(e)} (this one)**` : name(e)));
  const before = order.slice(0, at);
  const lines = [`**Merge order:** ${at + 1} of ${order.length}: ${steps.join(" → ")}`, ""];
  if (before.length === 0) {
    lines.push(`Merge this one first, into ${code(input.baseBranch)}.`);
  } else {
    lines.push(
      `This pull request targets ${code(input.baseBranch)}, the branch of the one before it, so its diff shows only this subgraph's changes. ` +
        `Merge ${before.map(name).join(", then ")} first; rpg-forge's next run then moves this one onto the base branch.`,
    );
  }
  lines.push("Every branch of the stack is a working package of what it holds, with its own tests.");
  return lines;
}

function dependencyLines(input: SubgraphPrInput, subgraph: PlannedSubgraph): string[] {
  const prs = new Map(input.dependencyPrs.map((pr) => [pr.subgraphId, pr]));
  const rank = new Map(input.plan.subgraphs.map((s, i) => [s.id, i]));
  const ids = [...new Set([...subgraph.dependsOn, ...prs.keys()])].filter((id) => id !== subgraph.id);
  ids.sort((a, b) => (rank.get(a) ?? rank.size) - (rank.get(b) ?? rank.size) || compareIds(a, b));
  return ids.map((id) => {
    const pr = prs.get(id);
    const name = input.plan.subgraphs.find((s) => s.id === id)?.name ?? id;
    return `- ${pr ? `#${pr.number}` : "no pull request"}: ${prose(name)} (${code(id)})`;
  });
}

/** The plan narrowed to one subgraph (edges inside it only), drawn by renderMermaid. */
function subgraphChart(plan: Plan, subgraph: PlannedSubgraph, checkpoint: Checkpoint): string {
  const members = new Set(subgraph.nodes);
  const dependencies = new Map(subgraph.nodes.map((id) => [id, (plan.dependencies.get(id) ?? []).filter((d) => members.has(d))]));
  const narrowed: Plan = { ...plan, order: subgraph.nodes, subgraphs: [subgraph], dependencies };
  return renderMermaid(narrowed, { statusOf: (id) => checkpoint.nodes[id]?.status });
}

const plural = (n: number, noun: string): string => `${count(n)} ${noun}${n === 1 ? "" : "s"}`;

/** On a PR whose branch rpg-forge left alone: why, and what to do (Renovate's rule: never force-push over a person). */
export function renderHeldComment(branch: string, reason: "edited" | "below-edited", head: string | undefined): string {
  const why =
    reason === "edited"
      ? `someone pushed to ${code(branch)}${head ? ` (its head is ${code(head.slice(0, 12))})` : ""}`
      : "a branch below it in the merge order has commits of a person's";
  return [
    "### rpg-forge left this branch as it is",
    "",
    `rpg-forge rebuilds the branches of its pull requests after every run and merge, but ${why}, and it never force-pushes over a person's work.`,
    "",
    "Merge the pull requests in their order as they are, or drop the commits that are not rpg-forge's and run it again to have it restack this one.",
  ].join("\n");
}
