import { z } from "zod";

/**
 * How strong a passed node's tests are (decision 0022): how many mechanical mutants of its
 * implementation they were run against, how many they killed, and what the survivors changed.
 * A measure for people, never a gate. In the foundation, since the checkpoint holds it and
 * the report and the pull requests render it.
 */

/** The three mechanical changes a mutant makes to a node's symbol. */
export const MutantKindSchema = z.enum(["comparison-flipped", "constant-returned", "branch-dropped"]);
export type MutantKind = z.infer<typeof MutantKindSchema>;

export const TestStrengthSchema = z.object({
  mutants: z.int().min(0).describe("Mutants the tests ran against with a verdict; a run that could not tell is not counted."),
  killed: z.int().min(0).describe("Mutants against which the tests failed."),
  survivors: z.array(
    z.object({
      kind: MutantKindSchema,
      description: z.string().describe("What the mutant changed, e.g. line 12: `<` became `>=`."),
    }),
  ),
});
export type TestStrength = z.infer<typeof TestStrengthSchema>;

/** The share of mutants killed, or undefined when no mutant was measured. */
export function strengthScore(strength: Pick<TestStrength, "mutants" | "killed">): number | undefined {
  return strength.mutants > 0 ? strength.killed / strength.mutants : undefined;
}

/** Whether the node's tests killed none of its mutants: what its pull request flags. */
export function killsNone(strength: Pick<TestStrength, "mutants" | "killed">): boolean {
  return strength.mutants > 0 && strength.killed === 0;
}
