import type { Checkpoint, CheckpointEntry, NodeStatus } from "../engine/checkpoint.js";
import type { Plan, PlannedSubgraph } from "../plan/plan.js";
import { compareIds } from "../rpg/ids.js";
import { duration } from "./generation-report.js";
import { renderMermaid } from "./mermaid.js";

/** GitHub's limit for an issue comment or a pull request body, in characters. */
export const COMMENT_LIMIT = 65_536;

export interface DependencyPr {
  subgraphId: string;
  number: number;
  url: string;
}

export interface SubgraphPrInput {
  plan: Plan;
  checkpoint: Checkpoint;
  subgraphId: string;
  /** Path of rpg.json in the repository. */
  rpgPath: string;
  runId: string;
  /** PRs of the subgraphs this one depends on (directly), when they have one. */
  dependencyPrs: DependencyPr[];
  /** The base branch this PR targets (the repository's base branch, or an upstream subgraph's branch when stacked). */
  baseBranch: string;
}

const STATUS: Record<NodeStatus, string> = {
  passed: "✅ passed",
  failed: "❌ failed",
  skipped: "⏭️ skipped",
  in_progress: "🔄 in progress",
  pending: "⏳ pending",
};

/** Subgraph branches live under rpg/ (subgraphBranch in src/engine/history.ts); report/ may not import the engine's values. */
const SUBGRAPH_BRANCH_PREFIX = "rpg/";

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
  const deps = dependencyLines(input, subgraph);
  if (deps.length > 0) lines.push("", "**Depends on**", "", ...deps);
  if (subgraph.dependsOn.length > 0 && input.baseBranch.startsWith(SUBGRAPH_BRANCH_PREFIX)) {
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
  lines.push("", "---", "", `Run ${code(input.runId)} · RPG ${code(input.rpgPath)} · base ${code(input.baseBranch)}`);
  return fitToLimit(`${lines.join("\n")}\n`, limit);
}

/** The run report for one subgraph's PR: its nodes with timings and tokens, and the whole run's counts. */
export function renderReportComment(input: SubgraphPrInput & { model: string; elapsedMs: number }, limit = COMMENT_LIMIT): string {
  const { plan, checkpoint } = input;
  const { subgraph, leaves } = scopeOf(input);
  const everyLeaf = plan.order.filter((id) => isLeaf(input, id));
  const tokensOf = (ids: string[]): number => ids.reduce((sum, id) => sum + (checkpoint.nodes[id]?.tokens?.total ?? 0), 0);
  const lines = [
    `### rpg-forge report: ${prose(subgraph.name)}`,
    "",
    `Run ${code(input.runId)} · model ${code(input.model)} · RPG ${code(input.rpgPath)}`,
    "",
    "| Scope | Nodes | Passed | Failed | Skipped | Pass rate |",
    "|---|---|---|---|---|---|",
    countRow(`Subgraph ${code(subgraph.id)}`, countsOf(leaves, checkpoint)),
    countRow("Whole run", countsOf(everyLeaf, checkpoint)),
    "",
    "_Pass rate: passed nodes of those generated (passed + failed); skipped nodes were never tried._",
    "",
    "| Node | Symbol | Status | Debug iterations | Tests | Duration | Tokens |",
    "|---|---|---|---|---|---|---|",
  ];
  let ms = 0;
  let timed = false;
  for (const id of leaves) {
    const entry = checkpoint.nodes[id];
    ms += entry?.duration_ms ?? 0;
    timed ||= entry?.duration_ms !== undefined;
    const time = entry?.duration_ms === undefined ? "–" : duration(entry.duration_ms);
    const tokens = entry?.tokens ? count(entry.tokens.total) : "–";
    lines.push(row([code(id), code(plan.nodes.get(id)?.name ?? "?"), STATUS[entry?.status ?? "pending"], ...results(entry), time, tokens]));
  }
  lines.push(
    row(["**Subgraph total**", "", "", "", "", timed ? duration(ms) : "–", count(tokensOf(leaves))]),
    "",
    `- **Total elapsed (whole run)**: ${duration(input.elapsedMs)}`,
    `- **Tokens (whole run)**: ${count(tokensOf(everyLeaf))}`,
  );
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
      ...details("pytest output (end)", [fenced(context.output || "(no output)", "text")]),
      ...details(`Attempts (${context.attempts.length}): diagnosis votes and localization trail`, trail.length > 0 ? trail : ["(none)"]),
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
    `${code(node?.file_path ?? "?")} passed in run ${code(input.runId)} after ${plural(entry?.retry_count ?? 0, "debug iteration")}${tests}.`,
    "The failure report that was here is resolved.",
    "",
  ].join("\n");
}

function scopeOf(input: SubgraphPrInput): { subgraph: PlannedSubgraph; leaves: string[] } {
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

interface Counts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

function countsOf(ids: readonly string[], checkpoint: Checkpoint): Counts {
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

const details = (summary: string, body: string[]): string[] => [
  "",
  `<details><summary>${escapeHtml(summary)}</summary>`,
  "",
  ...body,
  "",
  "</details>",
];

const row = (cells: string[]): string => `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
const count = (n: number): string => n.toLocaleString("en-US");
const plural = (n: number, noun: string): string => `${count(n)} ${noun}${n === 1 ? "" : "s"}`;
const escapeHtml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const longestRun = (text: string, char: string): number =>
  (text.match(new RegExp(`${char}+`, "g")) ?? []).reduce((max, run) => Math.max(max, run.length), 0);

/** A code span that no backtick in the text can close; one line, since spans in table cells cannot wrap. */
function code(text: string): string {
  const line = text.replace(/\s+/g, " ");
  if (line.trim() === "") return "` `";
  const ticks = "`".repeat(longestRun(line, "`") + 1);
  const pad = line.startsWith("`") || line.endsWith("`") ? " " : "";
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/** A fenced block longer than any backtick run in the content, so quoted output cannot close it. */
function fenced(content: string, info = ""): string {
  const ticks = "`".repeat(Math.max(3, longestRun(content, "`") + 1));
  return `${ticks}${info}\n${content.trimEnd()}\n${ticks}`;
}

/**
 * Model or test text as one line of inert Markdown: markup escaped, HTML shown as text,
 * and "@name" broken with a zero-width space, since "added @property" must not notify a user.
 */
function prose(text: string, max = 1000): string {
  return escapeHtml(clip(text.replace(/\s+/g, " ").trim(), max).replace(/[\\`*_[\]~|]/g, "\\$&")).replace(/@(?=\w)/g, "@\u200b");
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${dropHalfPair(text.slice(0, max - 1), "end")}…`;
}

/** Cutting a string can split a surrogate pair; drop the stranded half. */
function dropHalfPair(text: string, at: "start" | "end"): string {
  const unit = text.charCodeAt(at === "start" ? 0 : text.length - 1);
  if (at === "end" && unit >= 0xd800 && unit <= 0xdbff) return text.slice(0, -1);
  if (at === "start" && unit >= 0xdc00 && unit <= 0xdfff) return text.slice(1);
  return text;
}

// ---- fitToLimit ----

/** A part of the document that may be shortened: a fence's content, or the Markdown lines inside a <details> section. */
interface Cuttable {
  text: string;
  /** tail: logs, whose error is at the end; head: code and lists, whose start says what they are; lines: Markdown, cut between lines. */
  keep: "head" | "tail" | "lines";
}
type Piece = string | Cuttable;
interface Fence {
  marker: string;
  info: string;
}

const SNAP = 500; // a cut moves to a line break when one is this close, so kept output starts and ends with whole lines
const note = (n: number): string =>
  `_(truncated: ${count(n)} characters of output not shown; see docs/generation_report.md on the branch)_`;

/**
 * Shortens Markdown to `limit` characters. It cuts the longest fenced and collapsed contents first,
 * all down to one common length (```text fences keep their end, where pytest puts the error; other
 * fences and <details> text keep their start), and only if that is not enough drops whole lines from
 * the end, closing any fence or <details> left open. A note at the end says how much went.
 */
export function fitToLimit(markdown: string, limit = COMMENT_LIMIT): string {
  if (markdown.length <= limit) return markdown;
  const budget = limit - note(markdown.length).length - 3; // "\n\n" before the note, "\n" after it
  if (budget < 0) return "_(truncated)_".length <= limit ? "_(truncated)_" : "";
  const pieces = splitPieces(markdown);
  const render = (cap: number): { text: string; removed: number } => {
    let removed = 0;
    const parts = pieces.map((piece) => {
      if (typeof piece === "string") return piece;
      const cut = cutTo(piece, cap);
      if (cut.text.length >= piece.text.length) return piece.text;
      removed += cut.removed;
      return cut.text;
    });
    return { text: parts.join("\n"), removed };
  };
  let best = render(0);
  if (best.text.length <= budget) {
    let lo = 0;
    let hi = pieces.reduce((max, p) => (typeof p === "string" ? max : Math.max(max, p.text.length)), 0);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const tried = render(mid);
      if (tried.text.length <= budget) [lo, best] = [mid, tried];
      else hi = mid - 1;
    }
  } else {
    const hard = cutLines(best.text, budget);
    best = { text: hard.text, removed: best.removed + hard.removed };
  }
  return `${best.text.trimEnd()}\n\n${note(best.removed)}\n`;
}

function splitPieces(markdown: string): Piece[] {
  const lines = markdown.split("\n");
  const pieces: Piece[] = [];
  let run: string[] = [];
  let depth = 0;
  const flush = (): void => {
    if (run.length > 0) pieces.push({ text: run.join("\n"), keep: "lines" });
    run = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = fenceOpening(line);
    if (fence) {
      flush();
      let end = i + 1;
      while (end < lines.length && !closesFence(lines[end]!, fence)) end++;
      pieces.push(line);
      const content = lines.slice(i + 1, end).join("\n");
      // A cut chart would not render at all; charts are small, so they stay whole.
      if (end > i + 1) pieces.push(fence.info === "mermaid" ? content : { text: content, keep: fence.info === "text" ? "tail" : "head" });
      pieces.push(lines[end] ?? fence.marker); // an unclosed fence is closed
      i = end;
    } else if (depth > 0 && !/<\/?(details|summary)\b/i.test(line)) {
      run.push(line);
    } else {
      flush();
      pieces.push(line);
      depth = Math.max(0, depth + detailsBalance(line));
    }
  }
  flush();
  return pieces;
}

function cutTo(piece: Cuttable, cap: number): { text: string; removed: number } {
  const { text } = piece;
  if (piece.keep === "lines") {
    const lines = text.split("\n");
    let used = -1;
    let kept = 0;
    while (kept < lines.length && used + 1 + lines[kept]!.length <= cap) used += 1 + lines[kept++]!.length;
    const head = lines.slice(0, kept).join("\n");
    const marker = `_(${count(text.length - head.length)} characters cut)_`;
    return { text: `${head}\n\n${marker}\n`, removed: text.length - head.length };
  }
  if (piece.keep === "tail") {
    const start = text.length - cap;
    let tail = text.slice(start);
    const newline = tail.indexOf("\n");
    if (text[start - 1] !== "\n" && newline >= 0 && newline < SNAP) tail = tail.slice(newline + 1);
    tail = dropHalfPair(tail, "start");
    const removed = text.length - tail.length;
    return { text: `[... ${count(removed)} characters cut ...]${tail ? `\n${tail}` : ""}`, removed };
  }
  let head = text.slice(0, cap);
  const newline = head.lastIndexOf("\n");
  if (text[cap] !== "\n" && newline >= 0 && head.length - newline < SNAP) head = head.slice(0, newline);
  head = dropHalfPair(head, "end");
  const removed = text.length - head.length;
  return { text: `${head ? `${head}\n` : ""}[... ${count(removed)} characters cut ...]`, removed };
}

/** The last resort: whole lines from the start while they fit, then whatever closes the fence and <details> left open. */
function cutLines(text: string, budget: number): { text: string; removed: number } {
  const kept: string[] = [];
  let length = 0;
  let fence: Fence | undefined;
  let depth = 0;
  let closing = "";
  for (const line of text.split("\n")) {
    let nextFence = fence;
    let nextDepth = depth;
    if (fence) nextFence = closesFence(line, fence) ? undefined : fence;
    else nextFence = fenceOpening(line);
    if (!fence && !nextFence) nextDepth = Math.max(0, depth + detailsBalance(line));
    const nextClosing = `${nextFence ? `\n${nextFence.marker}` : ""}${"\n</details>".repeat(nextDepth)}`;
    const added = (kept.length > 0 ? 1 : 0) + line.length;
    if (length + added + nextClosing.length > budget) break;
    kept.push(line);
    [length, fence, depth, closing] = [length + added, nextFence, nextDepth, nextClosing];
  }
  return { text: kept.join("\n") + closing, removed: text.length - length };
}

function fenceOpening(line: string): Fence | undefined {
  const match = /^[ \t]*(`{3,}|~{3,})(.*)$/.exec(line);
  if (!match || (match[1]![0] === "`" && match[2]!.includes("`"))) return undefined;
  return { marker: match[1]!, info: match[2]!.trim().split(/\s+/)[0]!.toLowerCase() };
}

function closesFence(line: string, fence: Fence): boolean {
  const match = /^[ \t]*(`{3,}|~{3,})[ \t\r]*$/.exec(line);
  return !!match && match[1]![0] === fence.marker[0] && match[1]!.length >= fence.marker.length;
}

const detailsBalance = (line: string): number => (line.match(/<details\b/gi) ?? []).length - (line.match(/<\/details\s*>/gi) ?? []).length;
