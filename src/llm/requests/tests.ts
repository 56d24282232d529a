import { z } from "zod";
import type { ModelMessage } from "../provider.js";
import { symbolKindOf } from "../../rpg/symbol-kind.js";
import { nodeMessages, quoted, type NodePromptContext } from "./node-context.js";

export const TestsReplySchema = z.strictObject({
  test_code: z.string().describe("The node's pytest tests: imports and test functions, as one block of Python."),
  notes: z.string().describe("One or two sentences on what the tests cover."),
});
export type TestsReply = z.infer<typeof TestsReplySchema>;

export const TESTS_KIND = { kind: "tests", schemaName: "rpg_forge_tests", schema: TestsReplySchema } as const;

/** Asks for the node's tests; `rejection` says why the previous tests were not accepted. */
export function testsPrompt(node: NodePromptContext, rejection?: string): ModelMessage[] {
  const constant = symbolKindOf(node) === "constant";
  const owner = node.owner?.name;
  const lines = [
    `Write the pytest tests for ${node.name}, from its docstring and signature only (the implementation does not exist yet).`,
    constant
      ? `- ${node.name} is a module-level constant: test its value (its type, its entries, what the docstring says of it), and turn each of the node's examples into a test.`
      : `- Cover the happy path, edge cases (empty input, boundaries, None where it makes sense) and the error cases the docstring names (use pytest.raises), and turn each of the node's examples into a test.`,
    owner
      ? `- ${node.name} is a method of ${owner}: import the class as: from ${node.module} import ${owner}, and test the method on instances of it.`
      : `- Import the symbol as: from ${node.module} import ${node.name}`,
    `- Every top-level name you define must contain "${node.name}" (test functions: test_${node.name}_...), so that it cannot clash with other nodes' tests in ${node.testFile}. At top level: imports, functions, classes, and tables of cases for pytest.mark.parametrize assigned as plain literals (e.g. ${node.name.toUpperCase()}_CASES = [...]).`,
    `- The tests must fail against a stub (${constant ? `${node.name} = NotImplemented` : "one that raises NotImplementedError"}) and pass against a correct implementation. Compare floats with pytest.approx.`,
    `- Each test asserts something (assert, pytest.raises, pytest.approx or pytest.warns). The package is read-only while the tests run: write files only under the tmp_path fixture. No autouse fixtures, pytest hooks or module-level setup: each node's tests run on their own.`,
  ];
  if (rejection) lines.push("", "Your previous tests were not accepted:", quoted("rejection", rejection), "Write them again, fixing that.");
  return [...nodeMessages(node), { role: "user", content: lines.join("\n") }];
}
