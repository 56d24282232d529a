import { runPythonScript } from "../python-helpers/run-script.js";
import { REVIEW_SCRIPT } from "./review-script.js";
import { textFindings, type ReplyPart } from "./text-checks.js";

/**
 * The static review of every code reply (issue 12). The model is assumed to game its
 * reward, so before the engine applies an implementation or tests, their syntax tree is
 * checked for code that would decide the verdict instead of earning it: import-time
 * code, exits, reaching into pytest or the interpreter, tests that assert nothing. The
 * rules and their reasons are in docs/review-rules.md; the ids in ./rules.ts.
 */

/** One refused construct: the rule's id, the line (1-based, 0 for the whole reply) and what was found. */
export interface ReviewFinding {
  rule: string;
  line: number;
  message: string;
  /** Which part of the reply the line is in: the code, or an implementation's imports or support code. */
  part: ReplyPart["name"];
}

export type ReviewResult = { ok: true } | ReviewRefusal;
export type ReviewRefusal = { ok: false; findings: ReviewFinding[]; reason: string };

const LISTED = 3;

/** What an implementation reply holds besides its code and imports. */
export interface ImplementationExtras {
  /** Module-level support code (private helpers and constants, registration calls). */
  support?: string;
  /** The package's own functions the support code may call at import (the node's dependencies and its own symbol): name and dotted path. */
  registrars?: readonly { name: string; path: string }[];
}

/**
 * Reviews an implementation reply: its code, its imports (one import per line) and its support code.
 * reason: one line, e.g. `line 3: decorator "register" is not allowed (decorator-not-allowed); ...`.
 */
export async function reviewImplementation(
  python: string,
  code: string,
  imports: string,
  extras: ImplementationExtras = {},
): Promise<ReviewResult> {
  return review(python, implementationRequest(code, imports, extras));
}

/** The review script's request for an implementation reply (what `review_reply` in ./review-script.ts takes). */
export interface ReviewRequest {
  kind: "implementation" | "tests";
  parts: [ReplyPart["name"], string][];
  registrars: [string, string][];
}

/** The review script's output: the first findings as [rule, line, message, part], and how many there were. */
export interface ReviewOutput {
  findings: [string, number, string, ReplyPart["name"]][];
  total: number;
}

/** The request that reviews an implementation reply, for a script that runs the review among other work. */
export function implementationRequest(code: string, imports: string, extras: ImplementationExtras = {}): ReviewRequest {
  const parts: ReplyPart[] = [
    { name: "code", source: code },
    { name: "imports", source: imports },
  ];
  if (extras.support) parts.push({ name: "support", source: extras.support });
  return { kind: "implementation", parts: parts.map((p) => [p.name, p.source]), registrars: registrarPairs(extras.registrars) };
}

/** The verdict of the text checks, which need no Python: a refusal, or undefined when the reply may go to the script. */
export function textVerdict(request: ReviewRequest): ReviewRefusal | undefined {
  const early = textFindings(request.parts.map(([name, source]) => ({ name, source })));
  return early.length > 0 ? refused(early, early.length) : undefined;
}

/** The verdict of the review script's output. */
export function scriptVerdict(output: ReviewOutput): ReviewResult {
  if (output.total === 0) return { ok: true };
  const findings = output.findings.map(([rule, line, message, part]) => ({ rule, line, message, part }));
  return refused(findings, output.total);
}

/** Reviews a tests reply, which holds its own imports; `registrars` may decorate its helpers (a rule registered in a test). */
export async function reviewTests(
  python: string,
  code: string,
  registrars: ImplementationExtras["registrars"] = [],
): Promise<ReviewResult> {
  return review(python, testsRequest(code, registrars));
}

/** The review script's request for a tests reply. */
export function testsRequest(code: string, registrars: ImplementationExtras["registrars"] = []): ReviewRequest {
  return { kind: "tests", parts: [["code", code]], registrars: registrarPairs(registrars) };
}

function registrarPairs(registrars: ImplementationExtras["registrars"] = []): [string, string][] {
  return registrars.map((r) => [r.name, r.path]);
}

async function review(python: string, request: ReviewRequest): Promise<ReviewResult> {
  // Refused here, a reply that is not text or would rewrite its surroundings never reaches Python.
  const early = textVerdict(request);
  if (early) return early;
  return scriptVerdict(JSON.parse(await runPythonScript(python, REVIEW_SCRIPT, JSON.stringify(request))) as ReviewOutput);
}

function refused(findings: ReviewFinding[], total: number): ReviewRefusal {
  const listed = findings.slice(0, LISTED).map((f) => {
    const where = f.line > 0 ? `line ${f.line}: ` : "";
    return `${f.part === "code" ? "" : `${f.part} `}${where}${oneLine(f.message)} (${f.rule})`;
  });
  const more = total > LISTED ? `; and ${total - LISTED} more` : "";
  return { ok: false, findings, reason: `${listed.join("; ")}${more}` };
}

/** Messages quote the reply; a reason must stay one line whatever the reply held. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what must go
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");
}
