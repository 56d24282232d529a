import type { AssemblyResult } from "../engine/assemble.js";
import type { Checkpoint } from "../engine/checkpoint.js";
import type { RunSummary } from "../engine/summary.js";
import type { Plan } from "../plan/plan.js";
import { code, fenced, prose } from "./markdown.js";
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
  /** The run's commits, newest first; absent without git. */
  gitLog?: string[] | undefined;
}

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
  const tests = entries.reduce((acc, e) => ({ passed: acc.passed + e.test_results.passed, failed: acc.failed + e.test_results.failed }), {
    passed: 0,
    failed: 0,
  });
  const ran = entries.filter((e) => e.duration_ms !== undefined);
  const lines = [
    "# Code Generation Report",
    "",
    `**Generated**: ${input.generatedAt
      .toISOString()
      .replace("T", " ")
      .replace(/\.\d+Z$/, " UTC")}  `,
    `**Run**: ${input.runId}  `,
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
  lines.push(
    "## Test Results",
    "",
    `- **Unit Tests**: ${tests.passed + tests.failed} run in the last attempt of each node, ${tests.passed} passing`,
    "",
    "## Performance",
    "",
    `- **Generation Time**: ${duration(input.elapsedMs)}`,
    `- **Average Time per Generated Node**: ${ran.length === 0 ? "-" : duration(ran.reduce((s, e) => s + e.duration_ms!, 0) / ran.length)}`,
    `- **Tokens**: ${tokens.toLocaleString("en-US")}`,
    "",
  );
  if (input.assembly) {
    const suite = input.assembly.suite;
    lines.push("## Repository Validation", "");
    if (suite) {
      const mark = suite.failed === 0 && suite.exitCode === 0 ? "✅" : "⚠️";
      lines.push(
        `- ${mark} \`python3 -m pytest\` on the passed nodes' tests: ${suite.passed} of ${suite.total} passing (test_results.xml)`,
      );
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
  if (input.gitLog) {
    // Commit subjects carry subgraph names: the fence must be longer than any backtick run in them.
    lines.push("## Git History", "", fenced(input.gitLog.length > 0 ? input.gitLog.join("\n") : "(no commits yet)"), "");
  }
  return `${lines.join("\n")}\n`;
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

const cell = (text: string): string => text.replace(/\|/g, "\\|");
