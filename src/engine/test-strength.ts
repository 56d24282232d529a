import type { MutantKind, TestStrength } from "../record/test-strength.js";
import { strengthScore } from "../record/test-strength.js";
import { generateMutants, type Mutant, type MutationTarget } from "../workspace/mutants.js";

/**
 * What the node's tests said about one mutant: "killed" when they failed against it (exit 1, or a
 * collection error), "survived" when they passed, "error" when the run could tell neither (the
 * sandbox failed, pytest crashed): such a mutant is left out of the count.
 */
export type MutantVerdict = "killed" | "survived" | "error";

/** A verdict from a run of several mutants in one interpreter, or "alone": only a run of its own can tell. */
export type BatchVerdict = MutantVerdict | "alone";

export interface TestStrengthInput {
  python: string;
  /** The module holding the node's symbol, as it passed. */
  source: string;
  symbol: MutationTarget;
  /** Runs the node's tests against each mutant in one interpreter, the module left as it is; a verdict each, in order. */
  runMutants: (mutants: readonly Mutant[]) => Promise<BatchVerdict[]>;
  /** Runs the node's tests once with the mutant written in place of the module, then puts the module back. */
  runAlone: (mutant: Mutant) => Promise<MutantVerdict>;
  /** At most this many mutants (3 by default). */
  max?: number;
}

export interface TestStrengthResult extends TestStrength {
  /** killed / mutants, or undefined when no mutant got a verdict. */
  score: number | undefined;
  survivors: { kind: MutantKind; description: string }[];
}

/**
 * Runs a passed node's tests against mechanical mutants of its symbol and counts the ones they
 * kill (decision 0022). A measure shown to people, never a gate: whatever it finds, the node has
 * passed. The engine runs them all in one interpreter, one pytest session each (decision 0022).
 */
export async function measureTestStrength(input: TestStrengthInput): Promise<TestStrengthResult> {
  const mutants = await generateMutants(input.python, input.source, input.symbol, input.max ?? 3);
  let batch: BatchVerdict[] = mutants.length > 0 ? await input.runMutants(mutants) : [];
  // One mutant that ends the interpreter (the guard refusing what its tests did, a crash) takes the others' records
  // with it: then each runs alone, and only that one tells nothing.
  if (mutants.length > 1 && !batch.some((verdict) => verdict !== "error")) batch = mutants.map(() => "alone");
  let measured = 0;
  let killed = 0;
  const survivors: TestStrengthResult["survivors"] = [];
  for (const [i, mutant] of mutants.entries()) {
    const batched = batch[i] ?? "alone";
    const verdict = batched === "alone" ? await input.runAlone(mutant) : batched;
    if (verdict === "error") continue;
    measured += 1;
    if (verdict === "killed") killed += 1;
    else survivors.push({ kind: mutant.kind, description: mutant.description });
  }
  return { mutants: measured, killed, score: strengthScore({ mutants: measured, killed }), survivors };
}
