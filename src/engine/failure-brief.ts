import { redactSecrets } from "../redact.js";
import type { PytestResult } from "../sandbox/pytest.js";

/** What one debug iteration tried and how it ended, for the next prompt and the failed-node report. */
export interface AttemptNote {
  label: string;
  tried: string;
  outcome: string;
}

/**
 * The failure brief (seed 003): the failing tests with their messages, an excerpt
 * of pytest's output, and what earlier attempts tried, so that the next fix does
 * not repeat them. `outputChars` bounds the excerpt; the caller shrinks it to fit a
 * token budget.
 */
export function failureBrief(result: PytestResult, notes: readonly AttemptNote[], root: string, outputChars = 6000): string {
  const failing = result.tests.filter((t) => t.status === "failed" || t.status === "error");
  const lines = [`pytest exit code ${result.exitCode}${result.timedOut ? " (killed: the run exceeded its time limit)" : ""}.`];
  if (failing.length > 0) {
    lines.push(`Failing tests (${failing.length} of ${result.tests.length}):`);
    for (const t of failing.slice(0, 20)) lines.push(`- ${t.name}: ${oneLine(t.message ?? t.status)}`);
  }
  const output = stableOutput(result.output, root);
  if (outputChars > 0 && output.trim() !== "") lines.push("", "pytest output (end):", tail(output, outputChars));
  if (notes.length > 0) {
    lines.push("", "Earlier attempts:");
    for (const n of notes) lines.push(`- ${n.label}: ${oneLine(n.tried)} → ${oneLine(n.outcome)}`);
  }
  // The output is generated code's: it may print a secret it found.
  return redactSecrets(lines.join("\n"));
}

/** One line summing up a test run: "3 of 5 tests failed: test_a, test_b, ...". */
export function outcomeLine(result: PytestResult): string {
  if (result.timedOut) return "timed out";
  const failing = result.tests.filter((t) => t.status === "failed" || t.status === "error");
  if (failing.length === 0) return result.exitCode === 0 ? "all tests passed" : `pytest exit code ${result.exitCode}`;
  const names = failing.slice(0, 5).map((t) => t.name);
  return redactSecrets(`${failing.length} of ${result.tests.length} tests failed: ${names.join(", ")}${failing.length > 5 ? ", ..." : ""}`);
}

/**
 * pytest's output without what changes from run to run of the same code: timings,
 * object addresses and where the package happens to live. The brief goes into the
 * next prompt, and a prompt must be the same for the same code so that providers'
 * caches and `--replay-strict` work.
 */
export function stableOutput(output: string, root: string): string {
  return output
    .split(root.endsWith("/") ? root : `${root}/`)
    .join("")
    .replace(/ in \d+(?:\.\d+)?s(?= |\b)/g, "")
    .replace(/\b0x[0-9a-f]{6,}\b/gi, "0x…")
    .replace(/\/[^\s'"]*rpg-forge-pytest-[^/\s'"]+/g, "<tmp>");
}

function tail(text: string, chars: number): string {
  return text.length <= chars ? text.trimEnd() : `[... ${text.length - chars} characters cut ...]\n${text.slice(-chars).trimEnd()}`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
