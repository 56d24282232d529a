import type { AssemblyResult } from "../assembly/assembly-result.js";
import type { Checkpoint, CheckpointEntry } from "../record/checkpoint.js";
import type { RunSummary } from "../record/summary.js";
import type { Plan } from "../plan/plan.js";
import { diagnosedNodes, renderDiagnoses } from "./diagnoses.js";
import { code, count, fenced, prose } from "./markdown.js";
import { renderTestStrength } from "./test-strength.js";
import { renderCoverage } from "./coverage.js";
import { renderDependencyCheck } from "./dependency-check.js";
import { renderIntegration } from "./integration.js";
import { renderReviews } from "./reviews.js";
import { renderMermaid } from "./mermaid.js";

export interface ReportInput {
  plan: Plan;
  checkpoint: Checkpoint;
  summary: RunSummary;
  rpgPath: string;
  runId: string;
  model: string;
  generatedAt: Date;
  elapsedMs: number;
  /** What assembly did; absent for an interrupted run. */
  assembly?: AssemblyResult | undefined;
  /** The run's commits, newest first (`git log --format="%h %s%d"`); absent without git. */
  gitLog?: string[] | undefined;
}

/**
 * The line before the report's run details (run id, clock, timings, git history), which
 * change with every run: GitHub comments show the report up to it (withoutRunDetails).
 * An HTML comment, so it does not show; quoted text cannot forge it, since `prose` and
 * `code` keep it off the start of a line and fences hold only indented or fenced lines.
 */
/** What stands in for the run details where they are left out. */
export const RUN_DETAILS_NOTE = `_The run id, timings, tokens and git history change with every run: they are in the job summary and in the run's own report, ${code(".rpg-forge/runs/<run>/generation_report.md")} where it ran._`;

export const RUN_DETAILS_MARKER = "<!-- rpg-forge:run-details: the rest changes with every run -->";

/**
 * docs/generation_report.md: the PRD's appendix C (summary, per-subgraph table,
 * failed nodes with reasons, test results, timing, tokens), opening with the graph
 * coloured by status. Pure: data in, Markdown out, so the CLI, the PR comment and the
 * job summary all show the same text.
 */
export function renderGenerationReport(input: ReportInput): string {
  const { summary, checkpoint, plan } = input;
  const c = summary.counts;
  const pct = (n: number, of = c.total): string => (of === 0 ? "0%" : `${Math.round((n / of) * 100)}%`);
  const entries = Object.values(checkpoint.nodes).filter((e) => e.node_type !== "composite");
  const tokens = entries.reduce((sum, e) => sum + (e.tokens?.total ?? 0), 0);
  const ran = entries.filter((e) => e.duration_ms !== undefined);
  const regressions = entries.reduce((sum, e) => sum + (e.regressions ?? 0), 0);
  const lines = [
    "# Code Generation Report",
    "",
    `**RPG Input**: ${code(input.rpgPath)}  `,
    `**Model**: ${code(input.model)}`,
    "",
    "```mermaid",
    renderMermaid(plan, { statusOf: (id) => checkpoint.nodes[id]?.status }).trimEnd(),
    "```",
    "",
    "## Summary",
    "",
    `- **Total Nodes Planned**: ${c.total}`,
    `- **Nodes Passed**: ${c.passed} (${pct(c.passed)})`,
    `- **Nodes Failed**: ${c.failed} (${pct(c.failed)})`,
    `- **Nodes Skipped**: ${c.skipped} (${pct(c.skipped)})`,
    ...(c.pending + c.in_progress > 0 ? [`- **Not Yet Generated**: ${c.pending + c.in_progress}`] : []),
    ...(regressions > 0
      ? [`- **Regressions Caught**: ${regressions} (changes undone because they broke the tests of nodes that had passed)`]
      : []),
    "",
    "## Breakdown by Subgraph",
    "",
    "| Subgraph | Nodes | Passed | Failed | Skipped | Pass Rate |",
    "|----------|-------|--------|--------|---------|-----------|",
    ...summary.subgraphs.map((s) => {
      const rate = s.passed + s.failed === 0 ? "N/A (skipped)" : pct(s.passed, s.passed + s.failed);
      return `| ${cell(code(s.id))} | ${s.total} | ${s.passed} | ${s.failed} | ${s.skipped} | ${rate} |`;
    }),
    "",
  ];
  if (summary.failed.length > 0) {
    lines.push("## Failed Nodes (detail)", "");
    for (const f of summary.failed) {
      const node = plan.nodes.get(f.id);
      const blocked = summary.skipped.filter((s) => s.blockedBy.includes(f.id)).map((s) => s.id);
      lines.push(
        `### ${code(f.id)}: ${code(node?.name ?? "?")}`,
        `- **Failure Reason**: ${prose(f.reason)}`,
        `- **Debug Iterations**: ${f.iterations}`,
      );
      if (blocked.length > 0) lines.push(`- **Skipped Because of It**: ${blocked.map(code).join(", ")}`);
      lines.push("");
    }
  }
  const diagnosed = diagnosedNodes(plan.order, checkpoint.nodes);
  if (diagnosed.length > 0) {
    lines.push("## Diagnoses", "", "Each failing gate judged by the model's votes, a majority of which decides (decision 0020).", "");
    for (const id of diagnosed) lines.push(`### ${code(id)}`, "", ...renderDiagnoses(checkpoint.nodes[id]!.diagnoses!), "");
  }
  lines.push("## Test Results", "", ...testResults(input, entries), "");
  lines.push(...renderReviews(plan.order, checkpoint.nodes));
  lines.push(...renderIntegration(plan, checkpoint));
  lines.push(...renderTestStrength(plan, checkpoint.nodes));
  const coverage = renderCoverage(plan.order, checkpoint.nodes);
  if (coverage.length > 0)
    lines.push(
      "## Coverage",
      "",
      "Lines and branches of each passed node's code that its own tests ran (decision 0023).",
      "",
      ...coverage,
      "",
    );
  lines.push(...renderDependencyCheck(checkpoint.dependency_check));
  if (input.assembly) {
    const suite = input.assembly.suite;
    lines.push("## Repository Validation", "");
    if (suite) {
      const mark = suite.failed === 0 && suite.exitCode === 0 ? "✅" : "⚠️";
      lines.push(`- ${mark} package test suite: ${suite.passed} of ${suite.total} passing (see Test Results)`);
    } else {
      lines.push("- ⚠️ no node passed, so there are no tests to run");
    }
    lines.push("- ✅ every generated Python file parses (checked before it was written)");
    if (c.failed > 0) lines.push(`- ⚠️ ${c.failed} node${c.failed === 1 ? "" : "s"} failed (see above)`);
    if (c.skipped > 0) lines.push(`- ⚠️ ${c.skipped} node${c.skipped === 1 ? "" : "s"} skipped (dependency failures)`);
    for (const warning of input.assembly.warnings) lines.push(`- ⚠️ ${prose(warning)}`);
    for (const { cycle, suggestion } of input.assembly.importCycles)
      lines.push(`- ⚠️ circular import: ${cycle.map(code).join(" → ")}. ${prose(suggestion)}`);
    lines.push("");
  }
  lines.push(
    RUN_DETAILS_MARKER,
    "",
    "## Run",
    "",
    `- **Run**: ${input.runId}`,
    `- **Generated**: ${input.generatedAt
      .toISOString()
      .replace("T", " ")
      .replace(/\.\d+Z$/, " UTC")}`,
    "",
    "## Performance",
    "",
    `- **Generation Time**: ${duration(input.elapsedMs)}`,
    `- **Average Time per Generated Node**: ${ran.length === 0 ? "-" : duration(ran.reduce((s, e) => s + e.duration_ms!, 0) / ran.length)}`,
    `- **Tokens**: ${count(tokens)}`,
    "",
  );
  if (input.gitLog) {
    const log = input.gitLog;
    // Commit subjects carry subgraph names: the fence must be longer than any backtick run in them.
    lines.push("## Git History", "", fenced(log.length > 0 ? log.join("\n") : "(no commits yet)"), "");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * docs/generation_report.md as committed: the report of the state the commit holds, without
 * the run details, so that the same package has the same report whichever run made it.
 */
export function committedReport(input: Omit<ReportInput, "runId" | "generatedAt" | "elapsedMs" | "gitLog">): string {
  return withoutRunDetails(renderGenerationReport({ ...input, runId: "", generatedAt: new Date(0), elapsedMs: 0 }));
}

/**
 * The report as GitHub comments show it: without the run details, which change on every
 * run and would make a rerun that changes nothing edit the comment all the same.
 */
export function withoutRunDetails(report: string): string {
  const at = report.indexOf(`\n${RUN_DETAILS_MARKER}\n`);
  if (at < 0) return report;
  return `${report.slice(0, at + 1)}${RUN_DETAILS_NOTE}\n`;
}

/**
 * The test figures, each labelled with what it counts: the package's suite (the passed nodes'
 * tests, run together once the package is assembled) and, apart from it, the failed nodes'
 * tests at their last attempt, which the package does not hold.
 */
function testResults(input: ReportInput, entries: CheckpointEntry[]): string[] {
  const sum = (status: string) =>
    entries
      .filter((e) => e.status === status)
      .reduce(
        (acc, e) => ({ passed: acc.passed + e.test_results.passed, total: acc.total + e.test_results.passed + e.test_results.failed }),
        {
          passed: 0,
          total: 0,
        },
      );
  const lines: string[] = [];
  const suite = input.assembly?.suite;
  if (suite) {
    const integration = Object.values(input.checkpoint.integration ?? {}).some((r) => r.file !== undefined);
    const holds = integration ? "the passed nodes' tests and the shipped integration tests" : "the passed nodes' tests";
    lines.push(
      `- **Package test suite**: ${suite.passed} of ${suite.total} passing (${code("python3 -m pytest")} on the assembled package, which holds ${holds}; test_results.xml)`,
    );
  } else if (input.assembly) {
    lines.push("- **Package test suite**: none, since no node passed");
  } else {
    const passed = sum("passed");
    lines.push(
      `- **Passed nodes' tests**: ${passed.passed} of ${passed.total} passing, each node's at its last run (the package suite runs when the run completes)`,
    );
  }
  const failed = sum("failed");
  if (failed.total > 0)
    lines.push(`- **Failed nodes' tests**: ${failed.passed} of ${failed.total} passing at each node's last attempt (not in the package)`);
  return lines;
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

const cell = (text: string): string => text.replace(/\|/g, "\\|");
