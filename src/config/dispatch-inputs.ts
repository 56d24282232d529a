import { z } from "zod";

/** What a run of the Action does (its `mode` input). */
export const MODES = ["generate", "retry", "revise", "plan", "report", "restack"] as const;
export type Mode = (typeof MODES)[number];

const number = z.string().regex(/^\d*$/, "must be a whole number");

/**
 * The rpg-forge workflow's `workflow_dispatch` inputs: what the GitHub App sends to start a
 * run and what the workflow hands to the Action. One schema for both ends, so they cannot
 * drift; the workflow template declares exactly these keys (GitHub allows at most 10) and
 * GitHub sends every input as a string. An absent key means the Action's default.
 */
export const DispatchInputsSchema = z.strictObject({
  "rpg-path": z.string().min(1).optional(),
  mode: z.enum(MODES).optional(),
  nodes: z.string().optional(),
  subgraphs: z.string().optional(),
  model: z.string().optional(),
  "max-iterations": number.optional(),
  "base-branch": z.string().optional(),
  issue: number.optional(),
  // The comment (`comment-<id>`) or review (`review-<id>`) that asked for the run. Its text never travels in an
  // input (inputs show in the run's page and logs); the Action reads it through the API and quotes it to the model.
  request: z
    .string()
    .regex(/^((comment|review)-\d+)?$/, "request must be comment-<id> or review-<id>")
    .optional(),
  matrix: z.enum(["true", "false"]).optional(),
});

export type DispatchInputs = z.infer<typeof DispatchInputsSchema>;

/** The input names, as the workflow template declares them. */
export const DISPATCH_INPUT_NAMES = Object.keys(DispatchInputsSchema.shape) as (keyof DispatchInputs)[];

/** The inputs of a dispatch, checked, without the absent ones (the API takes a map of strings). */
export function dispatchInputs(values: DispatchInputs): Record<string, string> {
  const checked = DispatchInputsSchema.parse(values);
  return Object.fromEntries(Object.entries(checked).filter(([, v]) => v !== undefined)) as Record<string, string>;
}
