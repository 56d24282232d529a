import { z } from "zod";

/**
 * How much of a passed node's code its own tests executed (decision 0023): coverage.py's
 * line and branch coverage of the node's lines of its module. A measure for people, never a
 * gate. In the foundation, since the checkpoint holds it and the report and the pull
 * requests render it.
 */

export const CoverageCountSchema = z
  .object({
    covered: z.int().min(0),
    total: z.int().min(0),
  })
  .refine((count) => count.covered <= count.total, { message: "covered cannot exceed total" });
export type CoverageCount = z.infer<typeof CoverageCountSchema>;

export const CoverageSchema = z.object({
  lines: CoverageCountSchema.describe("Statements on the node's lines, and those the tests executed."),
  branches: CoverageCountSchema.describe(
    "Branch exits (each way out of an if, while, for, match case...) on the node's lines, and those the tests took.",
  ),
});
export type Coverage = z.infer<typeof CoverageSchema>;

/** The share covered, 0 to 100, or undefined when there is nothing to cover (a node with no branch). */
export function percent(count: CoverageCount): number | undefined {
  return count.total > 0 ? (100 * count.covered) / count.total : undefined;
}
