import { z } from "zod";
import { TokensSchema } from "./tokens.js";

/**
 * Integration tests per subgraph (PRD epic 4.5, decision 0024): once every leaf of a subgraph
 * has passed, tests generated from its structure (entry nodes to exit nodes) run against the
 * package as its subgraph commit holds it. In the foundation, since the checkpoint holds the
 * result and the report and the pull requests render it.
 */

/** The PRD's threshold: a subgraph is validated when this share of its integration tests pass (some may fail on spec ambiguity). */
export const INTEGRATION_PASS_SHARE = 0.8;

export const IntegrationStatusSchema = z
  .enum(["validated", "not_validated"])
  .describe("validated: at least 80% of the integration tests passed. not_validated: fewer did, or no tests could be run (see note).");

export const IntegrationSchema = z.object({
  status: IntegrationStatusSchema,
  entries: z.array(z.string()).describe("The subgraph's entry nodes: leaves with no dependency inside the subgraph."),
  exits: z.array(z.string()).describe("The subgraph's exit nodes: leaves no other leaf of the subgraph depends on."),
  total: z.int().min(0).describe("Test cases the generated tests ran."),
  passed: z.int().min(0).describe("Of those, the cases that passed."),
  shipped: z.int().min(0).describe("Cases in the file the subgraph commit holds: the passing tests only, run again as shipped."),
  file: z.string().optional().describe("The shipped test file (tests/integration/test_<subgraph>.py); absent when no test passed."),
  failing: z
    .array(z.object({ name: z.string(), message: z.string() }))
    .describe("The cases that failed, left out of the shipped file, with pytest's one-line reason."),
  note: z.string().optional().describe("Why no figure or no file: the tests could not be generated or run."),
  basis: z.string().describe("What was validated: the subgraph's leaves' latest attempts; a new attempt of any of them validates again."),
  tokens: TokensSchema.optional(),
});
export type Integration = z.infer<typeof IntegrationSchema>;

/** Whether `passed` of `total` cases reach the threshold; no cases validate nothing. */
export function meetsIntegrationThreshold(passed: number, total: number): boolean {
  return total > 0 && passed / total >= INTEGRATION_PASS_SHARE;
}
