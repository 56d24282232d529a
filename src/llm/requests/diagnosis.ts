import { z } from "zod";
import type { ModelMessage } from "../provider.js";
import { nodeMessages, quoted, type NodePromptContext } from "./node-context.js";

export const DiagnosisReplySchema = z.strictObject({
  verdict: z.enum(["implementation_bug", "test_issue", "environment_issue"]),
  reason: z.string().describe("The evidence for the verdict, in one or two sentences."),
});
export type DiagnosisReply = z.infer<typeof DiagnosisReplySchema>;

export const DIAGNOSIS_KIND = { kind: "diagnosis", schemaName: "rpg_forge_diagnosis", schema: DiagnosisReplySchema } as const;

/** Asks whether a failure lies in the implementation, the tests or the environment (PRD epic 4.5's majority vote asks this several times). */
export function diagnosisPrompt(node: NodePromptContext, tests: string, current: string, brief: string): ModelMessage[] {
  const lines = [
    `The tests of ${node.name} fail. Judge where the fault lies, from the docstring as the specification:`,
    `implementation_bug: the code does not do what the docstring says; test_issue: a test expects something the docstring does not say; environment_issue: the failure comes from the sandbox (timeouts, missing packages, file system).`,
    quoted("tests", tests),
    quoted("current_code", current),
    quoted("failure_brief", brief),
  ];
  return [...nodeMessages(node), { role: "user", content: lines.join("\n") }];
}
