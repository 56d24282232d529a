import type { NodeStatus } from "../record/checkpoint.js";
import type { Plan } from "../plan/plan.js";

export interface MermaidOptions {
  /** Colours nodes by their generation status where known. */
  statusOf?: (nodeId: string) => NodeStatus | undefined;
  /**
   * Above this many nodes the chart shows subgraphs, not nodes: GitHub refuses to
   * render Mermaid text over 50,000 characters or with more than 500 edges.
   */
  maxNodes?: number;
  /** Above this many arrows, likewise (default MAX_EDGES, for GitHub's renderer). */
  maxEdges?: number;
}

/** GitHub's Mermaid renderer gives up above 500 edges; keep a margin. */
const MAX_EDGES = 450;

const STATUS_STYLES: Record<NodeStatus, string> = {
  passed: "fill:#d3f9d8,stroke:#2b8a3e,color:#000",
  failed: "fill:#ffe3e3,stroke:#c92a2a,color:#000",
  skipped: "fill:#f1f3f5,stroke:#868e96,color:#495057,stroke-dasharray:4 3",
  in_progress: "fill:#fff3bf,stroke:#e67700,color:#000",
  pending: "fill:#ffffff,stroke:#adb5bd,color:#000",
};

/**
 * The plan as a Mermaid flowchart grouped by subgraph, arrows from a dependency to
 * the node that needs it (the direction generation flows). GitHub renders it in PR
 * comments, job summaries and Markdown files.
 */
export function renderMermaid(plan: Plan, options: MermaidOptions = {}): string {
  const edges = [...plan.dependencies.values()].reduce((sum, deps) => sum + deps.length, 0);
  if (plan.order.length > (options.maxNodes ?? 150) || edges > (options.maxEdges ?? MAX_EDGES)) return renderSubgraphChart(plan);
  const key = new Map(plan.order.map((id, i) => [id, `n${i}`]));
  const lines = ["flowchart TD"];
  plan.subgraphs.forEach((subgraph, s) => {
    lines.push(`  subgraph s${s}["${label(subgraph.name)}"]`);
    for (const id of subgraph.nodes) {
      const node = plan.nodes.get(id)!;
      const shape = node.node_type === "composite" ? [`[["`, `"]]`] : [`["`, `"]`];
      lines.push(`    ${key.get(id)}${shape[0]}${label(node.name)}<br/><small>${label(id)}</small>${shape[1]}`);
    }
    lines.push("  end");
  });
  for (const id of plan.order) {
    for (const dep of plan.dependencies.get(id) ?? []) lines.push(`  ${key.get(dep)} --> ${key.get(id)}`);
  }
  if (options.statusOf) {
    const byStatus = new Map<NodeStatus, string[]>();
    for (const id of plan.order) {
      const status = options.statusOf(id);
      if (!status) continue;
      const keys = byStatus.get(status);
      if (keys) keys.push(key.get(id)!);
      else byStatus.set(status, [key.get(id)!]);
    }
    for (const [status, keys] of byStatus) {
      lines.push(`  classDef ${status} ${STATUS_STYLES[status]}`);
      lines.push(`  class ${keys.join(",")} ${status}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function renderSubgraphChart(plan: Plan): string {
  const key = new Map(plan.subgraphs.map((s, i) => [s.id, `s${i}`]));
  const lines = ["flowchart TD"];
  for (const subgraph of plan.subgraphs)
    lines.push(`  ${key.get(subgraph.id)}["${label(subgraph.name)}<br/><small>${subgraph.nodes.length} nodes</small>"]`);
  for (const subgraph of plan.subgraphs) for (const dep of subgraph.dependsOn) lines.push(`  ${key.get(dep)} --> ${key.get(subgraph.id)}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Mermaid labels are quoted strings; quotes and angle brackets would end them or inject markup, and a
 * leading backtick would make a Markdown string, so they become Mermaid entity codes. Control characters
 * are dropped: the chart is also printed on a terminal (plan --mermaid).
 */
function label(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g, "")
      .replace(/#/g, "#35;")
      .replace(/"/g, "#quot;")
      .replace(/</g, "#lt;")
      .replace(/>/g, "#gt;")
      .replace(/`/g, "#96;")
      .replace(/\s+/g, " ")
  );
}
