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

/** A runner that answers by mutant kind and records what it was given. */
function runner(verdicts: Record<Mutant["kind"], MutantVerdict>) {
  const ran: string[] = [];
  const runTests = async (mutantSource: string, mutant: Mutant) => {
    ran.push(mutantSource);
    return verdicts[mutant.kind];
  };
  return { ran, runTests };
}

describe("measureTestStrength", () => {
  it("counts the mutants the tests killed and names the survivors", async () => {
    const { ran, runTests } = runner({ "comparison-flipped": "killed", "constant-returned": "killed", "branch-dropped": "survived" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runTests });
    expect(strength).toEqual({
      mutants: 3,
      killed: 2,
      score: 2 / 3,
      survivors: [{ kind: "branch-dropped", description: "line 3: `if n < low` became `if False`" }],
    });
    expect(ran).toHaveLength(3);
    expect(ran).not.toContain(CLAMP);
    expect(killsNone(strength)).toBe(false);
  });

  it("leaves a run that could not tell out of the count", async () => {
    const { runTests } = runner({ "comparison-flipped": "error", "constant-returned": "killed", "branch-dropped": "survived" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runTests });
    expect(strength).toMatchObject({ mutants: 2, killed: 1, score: 0.5 });
  });

  it("says the tests kill none when every mutant survives", async () => {
    const { runTests } = runner({ "comparison-flipped": "survived", "constant-returned": "survived", "branch-dropped": "survived" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runTests });
    expect(strength).toMatchObject({ mutants: 3, killed: 0, score: 0 });
    expect(strength.survivors.map((s) => s.kind)).toEqual(["comparison-flipped", "constant-returned", "branch-dropped"]);
    expect(killsNone(strength)).toBe(true);
  });

  it("runs the tests at most max times", async () => {
    const { ran, runTests } = runner({ "comparison-flipped": "killed", "constant-returned": "killed", "branch-dropped": "killed" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runTests, max: 1 });
    expect(ran).toEqual([CLAMP.replace("n < low", "n >= low")]);
    expect(strength).toEqual({ mutants: 1, killed: 1, score: 1, survivors: [] });
  });

  it("has no score, and flags nothing, when there is nothing to mutate or no run could tell", async () => {
    const none = runner({ "comparison-flipped": "error", "constant-returned": "error", "branch-dropped": "error" });
    const empty = await measureTestStrength({
      python,
      source: 'def f():\n    """Doc."""\n',
      symbol: { name: "f" },
      runTests: none.runTests,
    });
    expect(empty).toEqual({ mutants: 0, killed: 0, score: undefined, survivors: [] });
    expect(none.ran).toEqual([]);
    const unknown = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runTests: none.runTests });
    expect(unknown).toEqual({ mutants: 0, killed: 0, score: undefined, survivors: [] });
    expect(killsNone(unknown)).toBe(false);
  });

  it("gives a result the checkpoint's schema accepts", async () => {
    const { runTests } = runner({ "comparison-flipped": "killed", "constant-returned": "survived", "branch-dropped": "killed" });
    const strength = await measureTestStrength({ python, source: CLAMP, symbol: { name: "clamp" }, runTests });
    expect(TestStrengthSchema.parse(strength)).toEqual({ mutants: 3, killed: 2, survivors: [strength.survivors[0]] });
  });
});
