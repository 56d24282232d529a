import { z } from "zod";
import type { ModelMessage } from "../provider.js";
import { nodeMessages, quoted, type NodePromptContext } from "./node-context.js";

export const ReviewReplySchema = z.strictObject({
  verdict: z.enum(["approve", "reject"]),
  reason: z.string().describe("For a rejection, the concrete problem a fix must address; for an approval, one sentence."),
});
export type ReviewReply = z.infer<typeof ReviewReplySchema>;

export const REVIEW_KIND = { kind: "review", schemaName: "rpg_forge_review", schema: ReviewReplySchema } as const;

/** Asks for a review of code that passes its tests, against the docstring (seed 004's review step). */
export function reviewPrompt(node: NodePromptContext, tests: string, code: string): ModelMessage[] {
  const lines = [
    `The implementation of ${node.name} passes its tests. Review it against its docstring, the specification, for what the tests may not check:`,
    "- Does it do what the docstring says for every case the docstring names (edge cases, errors raised, what it returns)?",
    "- Would a maintainer accept it: no dead code, no needless complexity, names that say what things are?",
    'Reply "approve", or "reject" with the concrete problem a fix must address. Reject only for a real problem, not for taste.',
    quoted("tests", tests),
    quoted("code", code),
  ];
  return [...nodeMessages(node), { role: "user", content: lines.join("\n") }];
}
