import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerateResult } from "../../src/engine/generate.js";
import { writeRunReport } from "../../src/report/run-report.js";
import { generateWith, labLeaf, oneTest, startScriptedModel, type ScriptedModel } from "../helpers/scripted-model.js";

/**
 * PRD epic 4.5's regression tests: two nodes share src/lab/shapes.py. `root` passes first; `twice`
 * then passes its own tests with an import that rebinds `math` in the module, which breaks `root`.
 * The change is undone, the fix is told which test broke, and the fix without the import passes.
 */
const tests = (name: string, call: string, expected: number) => oneTest(name, `assert ${name}(${call}) == ${expected}`, "shapes");

let model: ScriptedModel;
let out: string;
let result: GenerateResult;

beforeAll(async () => {
  model = await startScriptedModel({
    root: {
      tests: [tests("root", "9", 3)],
      implementation: [{ imports: ["import math"], code: "def root(x):\n    return math.sqrt(x)\n", notes: "" }],
    },
    twice: {
      tests: [tests("twice", "4", 8)],
      implementation: [{ imports: ["from statistics import fmean as math"], code: "def twice(x):\n    return 2 * x\n", notes: "" }],
      fix: [{ imports: [], code: "def twice(x):\n    return 2 * x\n", explanation: "no import needed" }],
    },
  });
  out = mkdtempSync(join(tmpdir(), "rpg-forge-regression-"));
  result = await generateWith(model, [labLeaf("root", "shapes"), labLeaf("twice", "shapes", ["root"])], out);
}, 120_000);

afterAll(async () => {
  await model?.close();
  rmSync(out, { recursive: true, force: true });
});

describe("a change that breaks a node that passed before in the same module", () => {
  it("is undone, and the fix is told which tests broke", () => {
    expect(result.checkpoint.nodes["twice"]).toMatchObject({ status: "passed", retry_count: 1, regressions: 1 });
    expect(result.checkpoint.nodes["root"]).toMatchObject({ status: "passed" });
    const fix = JSON.stringify(model.requestsOf("twice", "fix")[0]!.body.messages);
    expect(fix).toContain("regression: the change broke test_root");
    expect(fix).toContain("src/lab/shapes.py; it was undone");
  });

  it("ships the module without the change, and both nodes' tests pass in it", () => {
    const module = readFileSync(join(out, "src/lab/shapes.py"), "utf8");
    expect(module).not.toContain("statistics");
    expect(module).toContain("def root(x):");
    expect(module).toContain("def twice(x):");
  });

  it("counts the regression in the report, and asks no diagnosis for it", async () => {
    const { report } = await writeRunReport(out, { ...result, rpgPath: "rpg.json", model: "fake-model" });
    expect(report).toContain("- **Regressions Caught**: 1 (changes undone because they broke the tests of nodes that had passed)");
    expect(model.requestsOf("twice", "diagnosis")).toEqual([]);
  });
});
