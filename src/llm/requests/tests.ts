import { z } from "zod";
import type { ModelMessage } from "../provider.js";
import { nodeMessages, quoted, type NodePromptContext } from "./node-context.js";

export const TestsReplySchema = z.strictObject({
  test_code: z.string().describe("The node's pytest tests: imports and test functions, as one block of Python."),
  notes: z.string().describe("One or two sentences on what the tests cover."),
});
export type TestsReply = z.infer<typeof TestsReplySchema>;

export const TESTS_KIND = { kind: "tests", schemaName: "rpg_forge_tests", schema: TestsReplySchema } as const;

/** Asks for the node's tests; `rejection` says why the previous tests were not accepted. */
export function testsPrompt(node: NodePromptContext, rejection?: string): ModelMessage[] {
  const lines = [
    `Write the pytest tests for ${node.name}, from its docstring and signature only (the implementation does not exist yet).`,
    `- Cover the happy path, edge cases (empty input, boundaries, None where it makes sense) and the error cases the docstring names (use pytest.raises), and turn each of the node's examples into a test.`,
    `- Import the symbol as: from ${node.module} import ${node.name}`,
    `- Every top-level function or class you define must have a name containing "${node.name}" (test functions: test_${node.name}_...), so that it cannot clash with other nodes' tests in ${node.testFile}. Only imports, functions and classes at top level.`,
    `- The tests must fail against a stub that raises NotImplementedError and pass against a correct implementation. Compare floats with pytest.approx.`,
    `- Each test asserts something (assert, pytest.raises, pytest.approx or pytest.warns). The package is read-only while the tests run: write files only under the tmp_path fixture. No autouse fixtures, pytest hooks or module-level setup: each node's tests run on their own.`,
  ];
  if (rejection) lines.push("", "Your previous tests were not accepted:", quoted("rejection", rejection), "Write them again, fixing that.");
  return [...nodeMessages(node), { role: "user", content: lines.join("\n") }];
}
