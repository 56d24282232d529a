import { z } from "zod";

import { normalizePath } from "../rpg/paths.js";
import { fitToLimit } from "./fit-limit.js";
import { clip, code, count, prose } from "./markdown.js";
import { countsOf, renderNodeTable, scopeOf, type SubgraphPrInput } from "./pull-request.js";
import { subgraphMeasures } from "./subgraph-measures.js";

/** The identifier of the "Retry failed" button, which the App's check_run.requested_action handler answers. */
export const RETRY_FAILED_ACTION = "retry-failed";

/** GitHub's limit for a check run's output summary and text, in characters. */
export const CHECK_OUTPUT_LIMIT = 65_535;

/** The check run of a subgraph's pull request: `rpg-forge / <subgraph id>`. */
export const checkRunName = (subgraphId: string): string => `rpg-forge / ${subgraphId}`;

/**
 * What the App needs to answer the "Retry failed" button, carried by the check run itself (in a
 * hidden line of its output text): only the App's own installation can write its check runs, so
 * the App reads it as its own. `failed` is left out when the list would not fit; the App then
 * retries every failed node of the graph (decision 0014).
 */
export const CheckRunStateSchema = z.object({
  rpg: z.string().min(1),
  subgraph: z.string().min(1),
  pr: z.int().positive(),
  failed: z.array(z.string().min(1)).optional(),
});
export type CheckRunState = z.infer<typeof CheckRunStateSchema>;

const STATE_PREFIX = "<!-- rpg-forge:check-run ";
/** Room for the state in the output text; the rest of the 65,535 characters is GitHub's margin. */
const STATE_LIMIT = 60_000;

export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "failure";
  title: string;
  message: string;
}

export interface RenderedCheckRun {
  name: string;
  conclusion: "success" | "failure" | "neutral";
  title: string;
  summary: string;
  /** Holds only the hidden state line. */
  text: string;
  /** One per failed node, at its file (line 1: its code may not be in the commit at all). */
  annotations: CheckAnnotation[];
  /** "Retry failed" when a node failed, else none (an update with none removes the button). */
  actions: { label: string; identifier: string; description: string }[];
}

/**
 * The check run of one subgraph's pull request: conclusion, counts, the node table of the PR
 * report with the reasons, an annotation per failed node and the "Retry failed" button. Like the
 * PR's comments it holds nothing that changes on every run, so an unchanged rerun writes nothing.
 */
export function renderCheckRun(input: SubgraphPrInput & { pullRequest: number }): RenderedCheckRun {
  const { subgraph, leaves } = scopeOf(input);
  const c = countsOf(leaves, input.checkpoint);
  const conclusion = c.failed > 0 ? "failure" : c.total > 0 && c.passed === c.total ? "success" : "neutral";
  const title = `${count(c.passed)} of ${count(c.total)} nodes passed`;
  const tally = [c.failed > 0 && `${count(c.failed)} failed`, c.skipped > 0 && `${count(c.skipped)} skipped`].filter(Boolean).join(", ");
  const summary = [
    `**${title}**${tally ? ` (${tally})` : ""} in subgraph ${code(subgraph.id)} (${prose(subgraph.name, 200)}) of ${code(input.rpgPath)}.`,
    "",
    ...renderNodeTable(input, leaves, { reasons: true }),
    ...subgraphMeasures(input.checkpoint, subgraph.id, leaves),
    "",
    c.failed > 0
      ? "_**Retry failed** above runs the workflow again for this pull request's failed nodes; each has a comment on the pull request with its tests and output._"
      : "",
  ].join("\n");
  const failed = leaves.filter((id) => input.checkpoint.nodes[id]?.status === "failed");
  const annotations = failed.map((id): CheckAnnotation => {
    const path = normalizePath(input.plan.nodes.get(id)?.file_path ?? "");
    return {
      path,
      start_line: 1,
      end_line: 1,
      annotation_level: "failure",
      title: clip(`rpg-forge: node ${id} failed`, 255),
      // Plain text (annotations are not Markdown); GitHub takes up to 64 KB.
      message: clip(input.checkpoint.nodes[id]?.failure_reason ?? "no reason recorded", 8_000),
    };
  });
  const state: CheckRunState = { rpg: input.rpgPath, subgraph: subgraph.id, pr: input.pullRequest, failed };
  return {
    name: checkRunName(subgraph.id),
    conclusion,
    title,
    summary: fitToLimit(`${summary.trimEnd()}\n`, CHECK_OUTPUT_LIMIT),
    text: stateLine(state),
    annotations,
    actions:
      failed.length > 0
        ? [{ label: "Retry failed", identifier: RETRY_FAILED_ACTION, description: "Run this PR's failed nodes again" }]
        : [],
  };
}

/** The hidden line carrying the state: JSON with `<` and `>` escaped, so that no node id can end the comment. */
function stateLine(state: CheckRunState): string {
  const json = (s: CheckRunState) => JSON.stringify(s).replace(/</g, "\\u003c").replace(/>/g, "\\u003e");
  let text = json(state);
  if (text.length > STATE_LIMIT) text = json({ rpg: state.rpg, subgraph: state.subgraph, pr: state.pr });
  return `${STATE_PREFIX}${text} -->`;
}

/** The state a check run's output text carries, or undefined when it carries none (not one of ours, or malformed). */
export function parseCheckRunState(text: string | null | undefined): CheckRunState | undefined {
  if (!text?.startsWith(STATE_PREFIX)) return undefined;
  const end = text.indexOf(" -->", STATE_PREFIX.length);
  if (end < 0) return undefined;
  try {
    const parsed = CheckRunStateSchema.safeParse(JSON.parse(text.slice(STATE_PREFIX.length, end)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
