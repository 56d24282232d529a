import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerateResult } from "../../src/engine/generate.js";
import { DEFAULT_MUTANTS } from "../../src/engine/tdd-setup.js";
import { writeRunReport } from "../../src/report/run-report.js";
import { probeCoverage } from "../../src/sandbox/coverage.js";
import { findPythonSetup } from "../../src/sandbox/python.js";
import { generateWith, labLeaf, oneTest, startScriptedModel, type ScriptedModel } from "../helpers/scripted-model.js";

/** Test strength (decision 0022), through a real run: the same code, tested well and tested for nothing. */
const CLAMP = (name: string) => `def ${name}(x):\n    if x < 0:\n        return 0\n    return x\n`;
const tests = (name: string, body: string) => oneTest(name, body);

let model: ScriptedModel;
let out: string;
let result: GenerateResult;

beforeAll(async () => {
  model = await startScriptedModel({
    strong: {
      tests: [tests("strong", "assert strong(-1) == 0 and strong(3) == 3")],
      implementation: [{ imports: [], code: CLAMP("strong"), notes: "" }],
    },
    // Fails against the stub (it raises), and passes against anything that returns.
    weak: { tests: [tests("weak", "assert weak(5) == weak(5)")], implementation: [{ imports: [], code: CLAMP("weak"), notes: "" }] },
  });
  out = mkdtempSync(join(tmpdir(), "rpg-forge-mutants-"));
  result = await generateWith(model, [labLeaf("strong"), labLeaf("weak")], out, { mutants: DEFAULT_MUTANTS });
}, 120_000);

afterAll(async () => {
  await model?.close();
  rmSync(out, { recursive: true, force: true });
});

describe("a passed node's tests, run against mutants of its code", () => {
  it("kills every mutant when they test the behaviour", () => {
    expect(result.checkpoint.nodes["strong"]).toMatchObject({ status: "passed", test_strength: { mutants: 3, killed: 3, survivors: [] } });
  });

  it("kills none when they test nothing, and the node still passes with what it shipped", () => {
    const weak = result.checkpoint.nodes["weak"]!;
    expect(weak.status).toBe("passed");
    expect(weak.test_strength).toMatchObject({ mutants: 3, killed: 0 });
    expect(weak.test_strength!.survivors.map((s) => s.kind).sort()).toEqual(["branch-dropped", "comparison-flipped", "constant-returned"]);
    // The module ships as it was tested, not as the last mutant left it.
    expect(readFileSync(join(out, "src/lab/weak.py"), "utf8")).toBe(CLAMP("weak"));
  });

  it("measures the coverage of each node's lines by its own tests, or says why it cannot", async () => {
    const strong = result.checkpoint.nodes["strong"]!;
    const weak = result.checkpoint.nodes["weak"]!;
    if ((await probeCoverage(await findPythonSetup())).ok) {
      // strong's tests take both ways out of its `if`; weak's call never reaches `return 0`.
      expect(strong.coverage).toEqual({ lines: { covered: 4, total: 4 }, branches: { covered: 2, total: 2 } });
      expect(weak.coverage).toEqual({ lines: { covered: 3, total: 4 }, branches: { covered: 1, total: 2 } });
    } else {
      expect(strong.coverage).toBeUndefined();
      expect(weak.coverage_note).toMatch(/coverage\.py is not installed/);
    }
  });

  it("keeps the measure as an artifact and shows it in the report", async () => {
    const steps = readdirSync(join(out, ".rpg-forge", "runs", result.runId, "weak"));
    expect(steps.at(-1)).toMatch(/^\d+-test-strength$/);
    const { report } = await writeRunReport(out, { ...result, rpgPath: "rpg.json", model: "fake-model" });
    expect(report).toContain("3 of 6 mutants killed (50%)");
    expect(report).toMatch(/\| `strong` \| 3 of 3 \(100%\) \| none \|/);
    expect(report).toMatch(/\| `weak` \| 0 of 3 \(0%\) ⚠️ \| line 2/);
  });
});
