import { expect } from "vitest";
import type { ReviewResult } from "../../src/review/reply-review.js";

/** Dedents a template so replies read like the Python they are. */
export function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = String.raw({ raw: strings.raw }, ...values).replace(/^\n/, "");
  const indent = Math.min(
    ...text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => /^ */.exec(l)![0].length),
  );
  return text
    .split("\n")
    .map((l) => l.slice(indent))
    .join("\n");
}

/** The rule ids a result was refused for; fails the test when it was accepted. */
export function rulesOf(result: ReviewResult): string[] {
  expect(result.ok, "the reply was accepted").toBe(false);
  return result.ok ? [] : [...new Set(result.findings.map((f) => f.rule))];
}

/** Asserts acceptance, showing the reason when the reply was refused. */
export function expectAccepted(result: ReviewResult): void {
  expect(result.ok ? "accepted" : result.reason).toBe("accepted");
}
