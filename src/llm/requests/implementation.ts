import { z } from "zod";
import type { ModelMessage } from "../provider.js";
import { nodeMessages, quoted, type NodePromptContext } from "./node-context.js";

const CodeFields = {
  imports: z.array(z.string()).describe('Import statements the code needs, one per item, e.g. "import math".'),
  code: z.string().describe("The complete definition of the node's symbol (decorators, signature, docstring, body), and nothing else."),
};

export const ImplementationReplySchema = z.strictObject({
  ...CodeFields,
  notes: z.string().describe("One or two sentences on the approach."),
});
export type ImplementationReply = z.infer<typeof ImplementationReplySchema>;

export const IMPLEMENTATION_KIND = {
  kind: "implementation",
  schemaName: "rpg_forge_implementation",
  schema: ImplementationReplySchema,
} as const;

export const FixReplySchema = z.strictObject({
  ...CodeFields,
  explanation: z.string().describe("What was wrong and what this version changes."),
});
export type FixReply = z.infer<typeof FixReplySchema>;

export const FIX_KIND = { kind: "fix", schemaName: "rpg_forge_fix", schema: FixReplySchema } as const;

function rules(node: NodePromptContext): string[] {
  return [
    `- "code" is exactly one top-level ${node.type === "class" ? "class" : "function"} named ${node.name}, with the signature above and type hints; it goes into ${node.filePath}, replacing only that symbol.`,
    `- "imports" lists the import statements it needs (standard library, the listed requirements, and dependencies from their modules). Nothing else at top level: no helpers, constants or side effects outside the symbol; put helpers inside it.`,
    `- Comment only what is not obvious.`,
  ];
}

/** Asks for the first implementation, given the tests it must pass. */
export function implementationPrompt(node: NodePromptContext, tests: string): ModelMessage[] {
  const lines = [`Implement ${node.name} so that these tests pass:`, quoted("tests", tests), ...rules(node)];
  return [...nodeMessages(node), { role: "user", content: lines.join("\n") }];
}

/** Asks for a fix, given the tests, the current code and the failure brief of the last run. */
export function fixPrompt(node: NodePromptContext, tests: string, current: string, brief: string): ModelMessage[] {
  const lines = [
    `The implementation of ${node.name} does not pass its tests yet. The tests are fixed; change the implementation.`,
    quoted("tests", tests),
    "The current implementation:",
    quoted("current_code", current),
    "What happened (failure brief):",
    quoted("failure_brief", brief),
    ...rules(node),
  ];
  return [...nodeMessages(node), { role: "user", content: lines.join("\n") }];
}
