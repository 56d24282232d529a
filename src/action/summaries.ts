import type { PublishedPullRequest } from "../github/publish.js";
import type { Plan } from "../plan/plan.js";
import { code, prose, row } from "../report/markdown.js";
import { renderMermaid } from "../report/mermaid.js";

/** The job summary of mode plan: the graph and the waves. Ids are the RPG's text, so they are quoted as code. */
export function planSummary(plan: Plan, rpgPath: string): string {
  const rows = plan.subgraphs.map((s) =>
    row([String(s.wave + 1), code(s.id), String(s.nodes.length), s.dependsOn.map(code).join(", ") || "—"]),
  );
  return [
    `## rpg-forge plan: ${code(rpgPath)}`,
    "",
    "```mermaid",
    renderMermaid(plan, {}).trimEnd(),
    "```",
    "",
    "| Wave | Subgraph | Nodes | Needs |",
    "|------|----------|-------|-------|",
    ...rows,
    "",
  ].join("\n");
}

/**
 * The pull requests of a run, for the job summary and the report; subgraph names are quoted inert.
 * `markNew` marks the PRs this run opened: right in the job summary, but on the issue it would change the
 * comment between the run that opened them and the next.
 */
export function pullRequestTable(prs: readonly PublishedPullRequest[], plan: Plan, { markNew = true } = {}): string {
  if (prs.length === 0) return "";
  const name = (id: string): string => prose(plan.subgraphs.find((s) => s.id === id)?.name ?? id, 200);
  return [
    "## Pull requests",
    "",
    "| Subgraph | Pull request | Base |",
    "|----------|--------------|------|",
    ...prs.map((pr) => row([name(pr.subgraphId), `[#${pr.number}](${pr.url})${markNew && pr.created ? " (new)" : ""}`, code(pr.base)])),
    "",
    "",
  ].join("\n");
}
