import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerateResult } from "../../src/engine/generate.js";
import { prReportOf, runReportOf } from "../helpers/reports.js";
import { generateWith, labLeaf, oneTest, startScriptedModel, type ScriptedModel } from "../helpers/scripted-model.js";

/**
 * Seed 004's review step (decision 0027), on with --review. `clamp`'s first code passes its tests but
 * lets negatives through, which its docstring forbids: the review rejects it, the fix is told why,
 * and the fixed code passes the tests and the review. `halve`'s review rejects its passing code, and
 * no fix passes the tests again: the code that passed stands, with the objection on record.
 */
const approve = { verdict: "approve", reason: "Matches the docstring." };
const CLAMP_DOC = "Clamp x to the range 0..10: below 0 gives 0, above 10 gives 10.";

let model: ScriptedModel;
let out: string;
let result: GenerateResult;

beforeAll(async () => {
  model = await startScriptedModel({
    clamp: {
      tests: [oneTest("clamp", "assert clamp(30) == 10")],
      implementation: [{ imports: [], code: "def clamp(x):\n    return min(x, 10)\n", notes: "" }],
      review: [{ verdict: "reject", reason: "Negative x is returned as is; the docstring says below 0 gives 0." }, approve],
      fix: [{ imports: [], code: "def clamp(x):\n    return max(0, min(x, 10))\n", explanation: "clamp below too" }],
    },
    halve: {
      tests: [oneTest("halve", "assert halve(4) == 2")],
      implementation: [{ imports: [], code: "def halve(x):\n    return x / 2\n", notes: "" }],
      review: [{ verdict: "reject", reason: "Should use integer division for ints." }],
      fix: [
        { imports: [], code: "def halve(x):\n    return x // 3\n", explanation: "integer division" },
        { imports: [], code: "def halve(x):\n    return x // 3\n", explanation: "again" },
      ],
    },
  });
  out = mkdtempSync(join(tmpdir(), "rpg-forge-review-"));
  result = await generateWith(model, [labLeaf("clamp", "clamp", [], CLAMP_DOC), labLeaf("halve")], out, {
    review: true,
    mutants: 0,
    integrationTests: false,
    maxIterations: 2,
  });
}, 180_000);

afterAll(async () => {
  await model?.close();
  rmSync(out, { recursive: true, force: true });
});

describe("the review step", () => {
  it("sends rejected code to the fix step with the reason, and passes the fix the review approves", () => {
    expect(result.checkpoint.nodes["clamp"]).toMatchObject({
      status: "passed",
      retry_count: 1,
      reviews: [
        { iteration: 0, verdict: "rejected", reason: "Negative x is returned as is; the docstring says below 0 gives 0." },
        { iteration: 1, verdict: "approved", reason: "Matches the docstring." },
      ],
    });
    const review = JSON.stringify(model.requestsOf("clamp", "review")[0]!.body.messages);
    expect(review).toContain("Review it against its docstring");
    expect(review).toContain("return min(x, 10)");
    const fix = JSON.stringify(model.requestsOf("clamp", "fix")[0]!.body.messages);
    expect(fix).toContain("a review against the docstring rejected it: Negative x is returned as is");
    expect(readFileSync(join(out, "src/lab/clamp.py"), "utf8")).toContain("max(0, min(x, 10))");
  });

  it("keeps the code that passed when no fix of the objection passes, with the objection on record", () => {
    expect(result.checkpoint.nodes["halve"]).toMatchObject({
      status: "passed",
      retry_count: 2,
      reviews: [{ iteration: 0, verdict: "rejected", reason: "Should use integer division for ints." }],
    });
    expect(model.requestsOf("halve", "fix")).toHaveLength(2);
    // Byte for byte what passed its tests, not the last fix.
    expect(readFileSync(join(out, "src/lab/halve.py"), "utf8")).toContain("return x / 2\n");
  });

  it("shows the reviews in the report, and the objection left standing on the pull request", async () => {
    const report = await runReportOf(out, result);
    expect(report).toContain("## Reviews");
    expect(report).toContain("| `clamp` | 0 | ❌ rejected | Negative x is returned as is; the docstring says below 0 gives 0. |");
    expect(report).toContain("| `clamp` | 1 | ✅ approved | Matches the docstring. |");
    expect(report).toContain("Passed with the last review's objection unresolved: `halve`.");
    const comment = prReportOf(result, "lab");
    expect(comment).toContain("#### ⚠️ Review objections not resolved");
    expect(comment).toContain("- `halve`: rejected once; no fix passed its tests and the review");
    expect(comment).not.toContain("- `clamp`: rejected");
  });
});

describe("without --review", () => {
  it("asks for no review", async () => {
    const plain = await startScriptedModel({
      clamp: {
        tests: [oneTest("clamp", "assert clamp(30) == 10")],
        implementation: [{ imports: [], code: "def clamp(x):\n    return min(x, 10)\n", notes: "" }],
      },
    });
    const dir = mkdtempSync(join(tmpdir(), "rpg-forge-no-review-"));
    try {
      const run = await generateWith(plain, [labLeaf("clamp")], dir, { mutants: 0, integrationTests: false });
      expect(run.checkpoint.nodes["clamp"]).toMatchObject({ status: "passed" });
      expect(run.checkpoint.nodes["clamp"]!.reviews).toBeUndefined();
      expect(plain.requestsOf("clamp", "review")).toEqual([]);
    } finally {
      await plain.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
