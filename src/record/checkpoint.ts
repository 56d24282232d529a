import { z } from "zod";
import { RpgForgeError } from "../errors.js";
import { redactDeep } from "../redact.js";
import { NodeStatusSchema } from "../rpg/schema.js";
import { CoverageSchema } from "./coverage.js";
import { RecordedDependencyCheckSchema } from "./dependency-check.js";
import { IntegrationSchema } from "./integration.js";
import { TestStrengthSchema } from "./test-strength.js";
import { TokensSchema } from "./tokens.js";

/**
 * The checkpoint's shape: what a run records of each node, for resuming, the report, the pull
 * requests and the App. In the foundation, since every layer reads it (decision 0002); the
 * engine's src/engine/checkpoint.ts and checkpoint-journal.ts write and read the files.
 */

export { NodeStatusSchema };
export type { NodeStatus } from "../rpg/schema.js";

export const TestResultsSchema = z.object({ passed: z.int().min(0), failed: z.int().min(0) });

/** What a failed node leaves for the people who fix it: the PR comment and the report render this. */
export const FailureContextSchema = z.object({
  failingTests: z.array(z.object({ name: z.string(), message: z.string() })),
  output: z.string().describe("The end of pytest's output."),
  lastCode: z.string().optional().describe("The last implementation the model proposed."),
  attempts: z.array(z.object({ label: z.string(), tried: z.string(), outcome: z.string() })),
});

/** What a diagnosis can decide (decision 0020): one verdict by majority, or why none was taken. */
export const DiagnosisDecisionSchema = z.enum([
  "implementation_bug",
  "test_issue",
  "environment_issue",
  "needs_human_review",
  "flaky",
  "no_votes",
]);

/** One diagnosis of a failing gate: each vote the model cast (or why it cast none), and what they decided. */
export const DiagnosisSchema = z.object({
  iteration: z.int().min(0).describe("The debug iteration whose failure was judged."),
  votes: z.array(
    z.object({
      verdict: z.enum(["implementation_bug", "test_issue", "environment_issue", "none"]),
      reason: z.string(),
      temperature: z.number().optional(),
    }),
  ),
  decision: DiagnosisDecisionSchema,
  flaky_tests: z.array(z.string()).optional().describe("Tests that failed and then passed unchanged when run again."),
});

export { TokensSchema };

/** One review of code that passed its tests (seed 004, decision 0027): the model's verdict against the docstring, and why. */
export const ReviewSchema = z.object({
  iteration: z.int().min(0).describe("The debug iteration whose code was reviewed."),
  verdict: z.enum(["approved", "rejected", "none"]).describe("none: the review request failed, and the tests decided alone."),
  reason: z.string(),
});

/** One start of a node's generation; the list is the node's history across runs and resumes. */
export const AttemptSchema = z.object({
  run_id: z.string(),
  started_at: z.string(),
  finished_at: z.string().optional(),
  status: NodeStatusSchema.optional(),
  iterations: z.int().min(0).optional(),
  failure_reason: z.string().optional(),
});

/**
 * A node's entry: PRD appendix B (status, timestamp, test_results, retry_count,
 * failure_reason) plus what resuming and reporting need without the RPG at hand.
 */
export const CheckpointEntrySchema = z.object({
  status: NodeStatusSchema,
  timestamp: z.string(),
  test_results: TestResultsSchema.default({ passed: 0, failed: 0 }),
  retry_count: z.int().min(0).default(0),
  failure_reason: z.string().optional(),
  blocked_by: z.array(z.string()).optional().describe("For skipped nodes: the failed ancestors that blocked them."),
  subgraph_id: z.string().optional(),
  node_type: z.enum(["leaf", "composite"]).optional(),
  spec_sha256: z.string().optional().describe("Hash of the node as planned; a changed node is regenerated on resume."),
  attempts: z.array(AttemptSchema).default([]),
  tokens: TokensSchema.optional().describe("Tokens the model used for this node, summed over its attempts."),
  duration_ms: z.int().min(0).optional(),
  failure_context: FailureContextSchema.optional(),
  diagnoses: z.array(DiagnosisSchema).optional().describe("The diagnoses of the node's latest attempt, in order."),
  test_strength: TestStrengthSchema.optional().describe("How many mutants of a passed node's code its own tests killed (decision 0022)."),
  coverage: CoverageSchema.optional().describe("The line and branch coverage of a passed node's code by its own tests (decision 0023)."),
  coverage_note: z.string().optional().describe("Why a passed node has no coverage figure (coverage.py missing, the run cut short...)."),
  reviews: z
    .array(ReviewSchema)
    .optional()
    .describe("The reviews of the latest attempt's passing code, in order, when the review step is on (decision 0027)."),
  regressions: z
    .int()
    .min(1)
    .optional()
    .describe("Changes of the latest attempt undone because they broke the tests of nodes that passed before in the same module."),
  owns: z
    .array(z.string())
    .optional()
    .describe("The top-level names a passed node's code defines in its module: its symbol and its support code's (default: its symbol)."),
});

export const CheckpointSchema = z.object({
  version: z.literal(1),
  run_id: z.string(),
  rpg_sha256: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  nodes: z.record(z.string(), CheckpointEntrySchema),
  pending_writes: z
    .array(z.string())
    .optional()
    .describe("Passed nodes whose files were still buffered in the work tree; a resume regenerates them."),
  integration: z
    .record(z.string(), IntegrationSchema)
    .optional()
    .describe("By subgraph id: the integration tests of each subgraph whose leaves all passed (decision 0024)."),
  dependency_check: RecordedDependencyCheckSchema.optional().describe(
    "The planned dependencies against the references in the code, checked once every node of a run has settled (decision 0028).",
  ),
});

export type TestResults = z.infer<typeof TestResultsSchema>;
export type FailureContext = z.infer<typeof FailureContextSchema>;
export type Diagnosis = z.infer<typeof DiagnosisSchema>;
export type Review = z.infer<typeof ReviewSchema>;
export type DiagnosisDecision = z.infer<typeof DiagnosisDecisionSchema>;
export type Attempt = z.infer<typeof AttemptSchema>;
export type CheckpointEntry = z.infer<typeof CheckpointEntrySchema>;
export type Checkpoint = z.infer<typeof CheckpointSchema>;

/** PRD appendix B as written: a bare map of node id to entry. Read for compatibility, never written. */
const AppendixBSchema = z.record(z.string(), CheckpointEntrySchema.omit({ attempts: true }).extend({ attempts: z.unknown().optional() }));

/** A checkpoint from its file's text; CHECKPOINT_CORRUPT when it is not one (an appendix-B map is read as one). */
export function parseCheckpoint(text: string, path: string): Checkpoint {
  const corrupt = (why: string, cause?: unknown): RpgForgeError =>
    new RpgForgeError(
      "CHECKPOINT_CORRUPT",
      `the checkpoint is corrupt: ${why}`,
      { file: path },
      "pass --fresh to start again; the old file is kept beside it as <name>.previous-<time>",
      { cause },
    );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw corrupt("not valid JSON", error);
  }
  const current = CheckpointSchema.safeParse(data);
  if (current.success) return current.data;
  if (typeof data === "object" && data !== null && !("version" in data)) {
    const legacy = AppendixBSchema.safeParse(data);
    if (legacy.success) return fromAppendixB(legacy.data);
  }
  const first = current.error.issues[0]!;
  throw corrupt(`${first.path.join(".") || "(root)"}: ${first.message}`, current.error);
}

function fromAppendixB(entries: z.infer<typeof AppendixBSchema>): Checkpoint {
  const stamps = Object.values(entries)
    .map((e) => e.timestamp)
    .sort();
  const nodes: Record<string, CheckpointEntry> = {};
  for (const [id, entry] of Object.entries(entries)) nodes[id] = { ...entry, attempts: [] };
  return { version: 1, run_id: "imported", rpg_sha256: "", created_at: stamps[0] ?? "", updated_at: stamps.at(-1) ?? "", nodes };
}

/** The fields in the order the schema declares them: the order of an entry or a record read back from a file. */
const ENTRY_KEYS = Object.keys(CheckpointEntrySchema.shape);
const INTEGRATION_KEYS = Object.keys(IntegrationSchema.shape);
const CHECKPOINT_KEYS = Object.keys(CheckpointSchema.shape);

/**
 * The checkpoint as its file holds it: committed and pushed, so without secrets. Each entry's fields
 * are written in the schema's order, whatever order the run set them in, so that the same state gives
 * the same bytes in the run that made it and in one that read it back (a rerun then commits nothing).
 */
export function checkpointText(checkpoint: Checkpoint): string {
  const ordered = (value: object, keys: readonly string[]): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    for (const key of keys)
      if ((value as Record<string, unknown>)[key] !== undefined) result[key] = (value as Record<string, unknown>)[key];
    return result;
  };
  const byId = (records: Record<string, object>, keys: readonly string[]) =>
    Object.fromEntries(Object.entries(records).map(([id, value]) => [id, ordered(value, keys)]));
  const whole = ordered(checkpoint, CHECKPOINT_KEYS);
  whole.nodes = byId(checkpoint.nodes, ENTRY_KEYS);
  if (checkpoint.integration) whole.integration = byId(checkpoint.integration, INTEGRATION_KEYS);
  return `${JSON.stringify(redactDeep(whole), null, 2)}\n`;
}
