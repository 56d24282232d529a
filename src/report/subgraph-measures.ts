import type { Checkpoint } from "../record/checkpoint.js";
import { integrationVerdict } from "./integration.js";
import { strengthLine } from "./test-strength.js";

/**
 * A subgraph's measures, a paragraph each where there is one: its integration tests (decision 0024), then its
 * nodes' test strength (0022). For the short views, the check run and the App's status answer; the PR's report
 * comment and docs/generation_report.md give the details.
 */
export function subgraphMeasures(checkpoint: Checkpoint, subgraphId: string, leaves: readonly string[]): string[] {
  const record = checkpoint.integration?.[subgraphId];
  const lines = [...(record ? [`**Integration tests**: ${integrationVerdict(record)}.`] : []), ...strengthLine(leaves, checkpoint.nodes)];
  return lines.flatMap((line) => ["", line]);
}
