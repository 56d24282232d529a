import type { ModelMessage } from "../llm/provider.js";
import { DIAGNOSIS_KIND } from "../llm/requests/diagnosis.js";
import type { DiagnosisDecision } from "../record/checkpoint.js";
import { VERDICTS, type Vote } from "../record/diagnosis.js";
import type { NodeModel } from "./node-model.js";

/** The lowest and highest temperature of a vote's requests (PRD epic 4.5: 0.3, 0.4, … 0.7 for five). */
const TEMPERATURES = { low: 0.3, high: 0.7 } as const;

/** The temperatures of `count` votes, spread evenly from low to high; one vote asks at the middle. */
export function voteTemperatures(count: number): number[] {
  if (count === 1) return [(TEMPERATURES.low + TEMPERATURES.high) / 2];
  const step = (TEMPERATURES.high - TEMPERATURES.low) / (count - 1);
  return Array.from({ length: count }, (_, i) => Math.round((TEMPERATURES.low + i * step) * 100) / 100);
}

/** How many votes of `asked` decide: more than half of those asked, not of those cast, so that silence never decides. */
export function majorityOf(asked: number): number {
  return Math.floor(asked / 2) + 1;
}

/**
 * The decision of a vote: the verdict that a majority of the votes asked agree on; "needs_human_review"
 * when none does (a 2-2-1 split of five); "no_votes" when the endpoint answered none of them, which
 * decides nothing and leaves the debug loop to go on as before.
 */
export function tallyVotes(votes: readonly Vote[], asked: number): { decision: DiagnosisDecision; count: number } {
  const cast = votes.filter((vote) => vote.verdict !== "none");
  if (cast.length === 0) return { decision: "no_votes", count: 0 };
  const counts = VERDICTS.map((verdict) => [verdict, cast.filter((vote) => vote.verdict === verdict).length] as const);
  const [winner, count] = counts.reduce((best, next) => (next[1] > best[1] ? next : best));
  return count >= majorityOf(asked) ? { decision: winner, count } : { decision: "needs_human_review", count };
}

/** A diagnosis prompt asked `count` times at once, at temperatures spread from 0.3 to 0.7; a request that fails casts no vote. */
export async function castVotes(model: NodeModel, messages: ModelMessage[], count: number): Promise<Vote[]> {
  const temperatures = voteTemperatures(count);
  const replies = await Promise.allSettled(temperatures.map((t) => model.ask(DIAGNOSIS_KIND, messages, t)));
  return replies.map((settled, i): Vote => {
    if (settled.status === "rejected") throw settled.reason;
    const reply = settled.value;
    const temperature = temperatures[i]!;
    return reply.ok
      ? { verdict: reply.value.verdict, reason: reply.value.reason, temperature }
      : { verdict: "none", reason: reply.reason, temperature };
  });
}
