import { describe, expect, it } from "vitest";
import { measureTestStrength, type BatchVerdict, type MutantVerdict } from "../../src/engine/test-strength.js";
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
function runner(verdicts: Record<Mutant["kind"], BatchVerdict>, alone: Partial<Record<Mutant["kind"], MutantVerdict>> = {}) {
  const ran: string[] = [];
  const batches: number[] = [];
  const ranAlone: Mutant["kind"][] = [];
  const runMutants = async (mutants: readonly Mutant[]) => {
    batches.push(mutants.length);
    ran.push(...mutants.map((mutant) => mutant.source));
    return mutants.map((mutant) => verdicts[mutant.kind]);
  };
  const runAlone = async (mutant: Mutant): Promise<MutantVerdict> => {
    ranAlone.push(mutant.kind);
    return alone[mutant.kind] ?? "error";
  };
  return { ran, batches, ranAlone, runMutants, runAlone };
}

describe("measureTestStrength", () => {
  it("counts the mutants the tests killed and names the survivors", async () => {
    const { ran, batches, runMutants, runAlone } = runner({
      "comparison-flipped": "killed",
      "constant-returned": "killed",
      "branch-dropped": "survived",
    });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants, runAlone });
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
    const { runMutants, runAlone } = runner({ "comparison-flipped": "error", "constant-returned": "killed", "branch-dropped": "survived" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants, runAlone });
    expect(strength).toMatchObject({ mutants: 2, killed: 1, score: 0.5 });
  });

  it("says the tests kill none when every mutant survives", async () => {
    const { runMutants, runAlone } = runner({
      "comparison-flipped": "survived",
      "constant-returned": "survived",
      "branch-dropped": "survived",
    });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants, runAlone });
    expect(strength).toMatchObject({ mutants: 3, killed: 0, score: 0 });
    expect(strength.survivors.map((s) => s.kind)).toEqual(["comparison-flipped", "constant-returned", "branch-dropped"]);
    expect(killsNone(strength)).toBe(true);
  });

  it("runs the tests against at most max mutants", async () => {
    const { ran, runMutants, runAlone } = runner({
      "comparison-flipped": "killed",
      "constant-returned": "killed",
      "branch-dropped": "killed",
    });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants, runAlone, max: 1 });
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
      runAlone: none.runAlone,
    });
    expect(empty).toEqual({ mutants: 0, killed: 0, score: undefined, survivors: [] });
    expect(none.ran).toEqual([]);
    const unknown = await measureTestStrength({
      python,
      source: CLAMP,
      symbol: { name: "clamp" },
      runMutants: none.runMutants,
      runAlone: none.runAlone,
    });
    expect(unknown).toEqual({ mutants: 0, killed: 0, score: undefined, survivors: [] });
    expect(killsNone(unknown)).toBe(false);
  });

  it("runs each mutant alone when the run of all of them told nothing of any", async () => {
    // As when one mutant's tests end the interpreter: the run of all three has no record; alone, only that one has none.
    const { batches, ranAlone, runMutants, runAlone } = runner(
      { "comparison-flipped": "error", "constant-returned": "error", "branch-dropped": "error" },
      { "comparison-flipped": "killed", "branch-dropped": "killed" },
    );
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants, runAlone });
    expect(batches).toEqual([3]);
    expect(ranAlone).toEqual(["comparison-flipped", "constant-returned", "branch-dropped"]);
    expect(strength).toMatchObject({ mutants: 2, killed: 2 });
  });

  it("runs alone only the mutants whose tests started a process", async () => {
    const { ranAlone, runMutants, runAlone } = runner(
      { "comparison-flipped": "killed", "constant-returned": "alone", "branch-dropped": "survived" },
      { "constant-returned": "killed" },
    );
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants, runAlone });
    expect(ranAlone).toEqual(["constant-returned"]);
    expect(strength).toMatchObject({ mutants: 3, killed: 2 });
  });

  it("gives a result the checkpoint's schema accepts", async () => {
    const { runMutants, runAlone } = runner({
      "comparison-flipped": "killed",
      "constant-returned": "survived",
      "branch-dropped": "killed",
    });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runMutants, runAlone });
    expect(TestStrengthSchema.parse(strength)).toEqual({ mutants: 3, killed: 2, survivors: [strength.survivors[0]] });
  });
});
