/** A diagnosis reply, as the model sends it. */
export interface VoteReply {
  verdict: "implementation_bug" | "test_issue" | "environment_issue";
  reason: string;
}

/** `count` identical diagnosis replies: enough for two diagnoses of five votes by default. */
export function unanimous(verdict: VoteReply["verdict"], reason: string, count = 10): VoteReply[] {
  return Array.from({ length: count }, () => ({ verdict, reason }));
}

/** One diagnosis of five votes split as given, e.g. split({ implementation_bug: 2, test_issue: 2, environment_issue: 1 }). */
export function split(counts: Partial<Record<VoteReply["verdict"], number>>): VoteReply[] {
  return Object.entries(counts).flatMap(([verdict, n]) =>
    Array.from({ length: n ?? 0 }, (_, i) => ({ verdict: verdict as VoteReply["verdict"], reason: `${verdict} vote ${i + 1}` })),
  );
}
