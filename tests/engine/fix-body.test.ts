import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateWith, labLeaf, oneTest, startScriptedModel, type ScriptedModel } from "../helpers/scripted-model.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { unanimous } from "../helpers/votes.js";

/**
 * Issue 18: a fix may send the body of the node's function alone, applied as replace_symbol_body applies it: the
 * signature and docstring of the accepted definition stay byte for byte, and the result goes through every check.
 */
const tempDir = useTempDirs();
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

const WRONG = 'def twice(x: int) -> int:\n    """Twice x, as the tests say."""\n    # Off by one, on purpose.\n    return x * 2 + 1\n';
const body = (text: string, explanation = "the body alone") => ({ imports: [], code: "", support: "", body: text, explanation });

async function run(fix: unknown[]) {
  const model = await startScriptedModel({
    twice: {
      tests: [oneTest("twice", "assert twice(3) == 6")],
      implementation: [{ imports: [], code: WRONG, notes: "" }],
      diagnosis: unanimous("implementation_bug", "off by one"),
      fix,
    },
  });
  models.push(model);
  const out = tempDir();
  const result = await generateWith(model, [labLeaf("twice")], out, { integrationTests: false });
  return { model, result, module: readFileSync(join(out, "src/lab/twice.py"), "utf8") };
}

describe("a fix that sends the body alone", () => {
  it("replaces only the body: the signature, the docstring and every other byte stay as accepted", async () => {
    const { result, module } = await run([body("return x * 2")]);
    expect(result.checkpoint.nodes["twice"]).toMatchObject({ status: "passed", retry_count: 1 });
    expect(module).toContain('def twice(x: int) -> int:\n    """Twice x, as the tests say."""\n    return x * 2\n');
  }, 120_000);

  it("refuses a body that does not parse in place, tells the next fix why, and writes nothing of it", async () => {
    const { model, result, module } = await run([body("return (x *"), body("return x + x")]);
    expect(result.checkpoint.nodes["twice"]).toMatchObject({ status: "passed", retry_count: 2 });
    const second = model.requestsOf("twice", "fix")[1]!;
    expect(JSON.stringify(second.body.messages)).toContain("the body could not replace twice's");
    expect(module).not.toContain("(x *");
    expect(module).toContain("    return x + x\n");
  }, 120_000);

  it("keeps a body that dedents to reach module level inside the function", async () => {
    const { module } = await run([body("    return x * 2\nimport os\nos._exit(0)"), body("return x * 2")]);
    // Whatever the gates made of it, nothing of the body ever stands at module level.
    expect(module).not.toMatch(/^(import os|os\._exit)/m);
  }, 120_000);
});
