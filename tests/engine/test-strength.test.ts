import { describe, expect, it } from "vitest";
import { measureTestStrength, type MutantVerdict } from "../../src/engine/test-strength.js";
import { killsNone, TestStrengthSchema } from "../../src/record/test-strength.js";
import { findPython } from "../../src/sandbox/python.js";
import type { Mutant } from "../../src/workspace/mutants.js";

const python = await findPython();

const CLAMP = `def clamp(n, low, high):
    """Clamp n into [low, high]."""
    if n < low:
        return low
    return min(n, high)
`;

/** A runner that answers by mutant kind and records what it was given, and how many runs it was asked for. */
function runner(verdicts: Record<Mutant["kind"], MutantVerdict>) {
  const ran: string[] = [];
  const batches: number[] = [];
  const runMutants = async (mutants: readonly Mutant[]) => {
    batches.push(mutants.length);
    ran.push(...mutants.map((mutant) => mutant.source));
    return mutants.map((mutant) => verdicts[mutant.kind]);
  };
  return { ran, batches, runMutants };
}

describe("measureTestStrength", () => {
  it("counts the mutants the tests killed and names the survivors", async () => {
    const { ran, batches, runMutants } = runner({
      "comparison-flipped": "killed",
      "constant-returned": "killed",
      "branch-dropped": "survived",
    });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants });
    expect(strength).toEqual({
      mutants: 3,
      killed: 2,
      score: 2 / 3,
      survivors: [{ kind: "branch-dropped", description: "line 3: `if n < low` became `if False`" }],
    });
    expect(ran).toHaveLength(3);
    expect(ran).not.toContain(CLAMP);
    expect(batches).toEqual([3]);
    expect(killsNone(strength)).toBe(false);
  });

  it("leaves a run that could not tell out of the count", async () => {
    const { runMutants } = runner({ "comparison-flipped": "error", "constant-returned": "killed", "branch-dropped": "survived" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants });
    expect(strength).toMatchObject({ mutants: 2, killed: 1, score: 0.5 });
  });

  it("says the tests kill none when every mutant survives", async () => {
    const { runMutants } = runner({ "comparison-flipped": "survived", "constant-returned": "survived", "branch-dropped": "survived" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants });
    expect(strength).toMatchObject({ mutants: 3, killed: 0, score: 0 });
    expect(strength.survivors.map((s) => s.kind)).toEqual(["comparison-flipped", "constant-returned", "branch-dropped"]);
    expect(killsNone(strength)).toBe(true);
  });

  it("runs the tests against at most max mutants", async () => {
    const { ran, runMutants } = runner({ "comparison-flipped": "killed", "constant-returned": "killed", "branch-dropped": "killed" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants, max: 1 });
    expect(ran).toEqual([CLAMP.replace("n < low", "n >= low")]);
    expect(strength).toEqual({ mutants: 1, killed: 1, score: 1, survivors: [] });
  });

  it("has no score, and flags nothing, when there is nothing to mutate or no run could tell", async () => {
    const none = runner({ "comparison-flipped": "error", "constant-returned": "error", "branch-dropped": "error" });
    const empty = await measureTestStrength({
      python,
      source: 'def f():\n    """Doc."""\n',
      symbol: { name: "f" },
      runMutants: none.runMutants,
    });
    expect(empty).toEqual({ mutants: 0, killed: 0, score: undefined, survivors: [] });
    expect(none.ran).toEqual([]);
    const unknown = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants: none.runMutants });
    expect(unknown).toEqual({ mutants: 0, killed: 0, score: undefined, survivors: [] });
    expect(killsNone(unknown)).toBe(false);
  });

  it("runs each mutant alone when the run of all of them told nothing of any", async () => {
    const batches: number[] = [];
    // As when one mutant's tests end the interpreter: the run of all three has no record; alone, only that one has none.
    const runMutants = async (mutants: readonly Mutant[]): Promise<MutantVerdict[]> => {
      batches.push(mutants.length);
      if (mutants.length > 1) return mutants.map(() => "error");
      return [mutants[0]!.kind === "constant-returned" ? "error" : "killed"];
    };
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants });
    expect(batches).toEqual([3, 1, 1, 1]);
    expect(strength).toMatchObject({ mutants: 2, killed: 2 });
  });

  it("gives a result the checkpoint's schema accepts", async () => {
    const { runMutants } = runner({ "comparison-flipped": "killed", "constant-returned": "survived", "branch-dropped": "killed" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants });
    expect(TestStrengthSchema.parse(strength)).toEqual({ mutants: 3, killed: 2, survivors: [strength.survivors[0]] });
  });
});
