import { z } from "zod";
import type { ModelMessage } from "../provider.js";
import { symbolKindOf } from "../../rpg/symbol-kind.js";
import { nodeMessages, quoted, type NodePromptContext } from "./node-context.js";

const CodeFields = {
  imports: z.array(z.string()).describe('Import statements the code needs, one per item, e.g. "import math".'),
  code: z.string().describe("The complete definition of the node's symbol (decorators, signature, docstring, body), and nothing else."),
  support: z
    .string()
    .describe(
      "Module-level code the symbol needs beside it, or an empty string: private helpers and constants (names starting with _), compiled patterns, and calls registering them with the package's own functions.",
    ),
};

/** Replies recorded before the support field existed (cassettes) have none: they are read as having no support code. */
const withSupport = (json: unknown): unknown =>
  typeof json === "object" && json !== null && !Array.isArray(json) && !("support" in json) ? { ...json, support: "" } : json;

export const ImplementationReplySchema = z.strictObject({
  ...CodeFields,
  notes: z.string().describe("One or two sentences on the approach."),
});
export type ImplementationReply = z.infer<typeof ImplementationReplySchema>;

export const IMPLEMENTATION_KIND = {
  kind: "implementation",
  schemaName: "rpg_forge_implementation",
  schema: ImplementationReplySchema,
  accepts: z.preprocess(withSupport, ImplementationReplySchema),
} as const;

export const FixReplySchema = z.strictObject({
  ...CodeFields,
  body: z
    .string()
    .describe(
      'Instead of "code", for a function or method: only its new body, the statements under its docstring (the signature, decorators and docstring stay exactly as they are). An empty string when "code" holds the whole definition.',
    ),
  explanation: z.string().describe("What was wrong and what this version changes."),
});
export type FixReply = z.infer<typeof FixReplySchema>;

/** Fix replies recorded before the body field existed (cassettes) have none: they are read as whole definitions. */
const withBody = (json: unknown): unknown =>
  typeof json === "object" && json !== null && !Array.isArray(json) && !("body" in json) ? { ...json, body: "" } : json;

export const FIX_KIND = {
  kind: "fix",
  schemaName: "rpg_forge_fix",
  schema: FixReplySchema,
  accepts: z.preprocess((json) => withBody(withSupport(json)), FixReplySchema),
} as const;

const SHAPE = {
  function: (node: NodePromptContext) => `one top-level function named ${node.name}, with the signature above and type hints`,
  class: (node: NodePromptContext) =>
    `one top-level class named ${node.name}, with the signature above and type hints, its docstring and class attributes` +
    `${node.bases && node.bases.length > 0 ? `, subclassing ${node.bases.join(", ")}` : ""}; leave out the methods that are nodes of their own`,
  constant: (node: NodePromptContext) =>
    `one top-level assignment to ${node.name}, with its type annotation (a constant, table or type alias)`,
  method: (node: NodePromptContext) =>
    `one method named ${node.name} of class ${node.owner?.name ?? "?"} (def ${node.name}(self, ...)), written without the class's indentation; rpg-forge puts it into the class`,
};

function rules(node: NodePromptContext): string[] {
  return [
    `- "code" is exactly ${SHAPE[symbolKindOf({ type: node.type, parent_id: node.owner?.name })](node)}; it goes into ${node.filePath}, replacing only that symbol.`,
    `- "imports" lists the import statements it needs (standard library, the listed requirements, and dependencies from their modules).`,
    `- "support" holds what the module needs beside the symbol, as a real library keeps it: private helpers and constants (names starting with _, unique in the module), compiled patterns, and calls that register them with the package's own functions (its dependencies). Data and those calls only: nothing else may run at import. Leave it empty when the symbol needs nothing beside it.`,
    `- Comment only what is not obvious.`,
  ];
}

/** Asks for the first implementation, given the tests it must pass. */
export function implementationPrompt(node: NodePromptContext, tests: string): ModelMessage[] {
  const lines = [`Implement ${node.name} so that these tests pass:`, quoted("tests", tests), ...rules(node)];
  return [...nodeMessages(node), { role: "user", content: lines.join("\n") }];
}

/**
 * Asks for a fix, given the tests, the current code, the failure brief of the last run and, when the engine gathered
 * it, the localization around the node (its dependencies, their code, RPG search hits; decision 0028).
 */
export function fixPrompt(node: NodePromptContext, tests: string, current: string, brief: string, localization = ""): ModelMessage[] {
  const lines = [
    `The implementation of ${node.name} does not pass its tests yet. The tests are fixed; change the implementation.`,
    quoted("tests", tests),
    "The current implementation:",
    quoted("current_code", current),
    "What happened (failure brief):",
    quoted("failure_brief", brief),
    ...(localization === ""
      ? []
      : [
          "What rpg-forge looked up around the node (quoted data, for finding the fault; the dependencies' code is not yours to change):",
          quoted("localization", localization),
        ]),
    ...rules(node),
    bodyRule(node),
  ];
  return [...nodeMessages(node), { role: "user", content: lines.join("\n") }];
}

/** A fix of a function or method may send its body alone (applied like the language server's replace_symbol_body). */
function bodyRule(node: NodePromptContext): string {
  const kind = symbolKindOf({ type: node.type, parent_id: node.owner?.name });
  return kind === "function" || kind === "method"
    ? `- To change only the body, leave "code" empty and put the new body in "body": the signature, decorators and docstring of the current implementation stay byte for byte. Otherwise "body" is an empty string.`
    : `- "body" is an empty string: send the whole definition in "code".`;
}
