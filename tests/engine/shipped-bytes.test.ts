import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerateResult } from "../../src/engine/generate.js";
import { composite } from "../helpers/rpg.js";
import { generateWith, labLeaf, startScriptedModel, type ScriptedModel } from "../helpers/scripted-model.js";

/**
 * What ships is byte for byte what was tested, assembly included: a module's docstring
 * from its composite is in the module before the first test runs, not added after.
 */
const TESTS = { test_code: "from lab.tools import double\n\n\ndef test_double_two():\n    assert double(2) == 4\n", notes: "" };
const CODE = { imports: [], code: "def double(x):\n    return x * 2\n", notes: "" };

let model: ScriptedModel;
let out: string;
let result: GenerateResult;

beforeAll(async () => {
  model = await startScriptedModel({ double: { tests: [TESTS], implementation: [CODE] } });
  out = mkdtempSync(join(tmpdir(), "rpg-forge-shipped-"));
  const nodes = [
    composite({ id: "tools", name: "tools", file: "src/lab/tools.py", subgraph: "lab", docstring: "Small tools for numbers." }),
    { ...labLeaf("double", "tools"), parent_id: "tools" },
  ];
  result = await generateWith(model, nodes, out);
}, 120_000);

afterAll(async () => {
  await model?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

describe("the shipped module", () => {
  it("is the module its tests passed against, its composite's docstring included", () => {
    expect(result.summary.counts.passed).toBe(1);
    const shipped = readFileSync(join(out, "src/lab/tools.py"), "utf8");
    expect(shipped).toBe('"""Small tools for numbers."""\n\n\ndef double(x):\n    return x * 2\n');
    const runs = join(out, ".rpg-forge/runs", result.runId, "double");
    const gate = readdirSync(runs).find((dir) => dir.endsWith("green-gate-green"))!;
    expect(readFileSync(join(runs, gate, "tools.py"), "utf8")).toBe(shipped);
  });
});
