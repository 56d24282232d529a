import type { RpgNode } from "../rpg/schema.js";
import { symbolKindOf } from "../rpg/symbol-kind.js";
import type { Outline, TopLevelStatement } from "../workspace/python-outline.js";

/**
 * The engine's verdict on what the model proposed (seed 003: the model proposes,
 * deterministic code decides). Anything beyond the node's own symbol and tests is
 * refused with a reason, and the refusal counts as a failed attempt.
 */
export type Verdict<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Checks proposed tests; returns the pytest ids of the node's tests. */
export function checkTests(node: RpgNode, testFile: string, outline: Outline, otherNames: ReadonlySet<string>): Verdict<string[]> {
  const shape = testFileStatements(outline);
  if (!shape.ok) return shape;
  // Tables of cases are plain literals (the review refuses anything that runs); their names are held to the same rule as functions'.
  const named = shape.value.filter((s) => s.kind === "def" || s.kind === "class" || s.kind === "assign");
  const foreign = named.filter((s) => !s.name!.toLowerCase().includes(node.name.toLowerCase()));
  if (foreign.length > 0)
    return {
      ok: false,
      reason: `top-level names must contain "${node.name}" so they cannot clash with other nodes' tests: ${foreign.map((s) => s.name).join(", ")}`,
    };
  const clashing = named.filter((s) => otherNames.has(s.name!));
  if (clashing.length > 0)
    return { ok: false, reason: `${clashing.map((s) => s.name).join(", ")} already defined by another node's tests in ${testFile}` };
  const tests = named.filter((s) => (s.kind === "def" && s.name!.startsWith("test")) || (s.kind === "class" && s.name!.startsWith("Test")));
  if (tests.length === 0) return { ok: false, reason: "no test functions (test_...) or test classes (Test...) were proposed" };
  return { ok: true, value: tests.map((s) => `${testFile}::${s.name}`) };
}

/** Checks proposed integration tests (decision 0024); returns the pytest ids of its tests. */
export function checkIntegrationTests(testFile: string, outline: Outline): Verdict<string[]> {
  const shape = testFileStatements(outline);
  if (!shape.ok) return shape;
  const tests = shape.value.filter((s) => s.kind === "def" && s.name!.startsWith("test"));
  if (tests.length === 0) return { ok: false, reason: "no test functions (test_...) were proposed" };
  return { ok: true, value: tests.map((s) => `${testFile}::${s.name}`) };
}

/** A test file's top-level statements, or why they are not what tests may hold (it does not parse, or runs statements). */
function testFileStatements(outline: Outline): Verdict<TopLevelStatement[]> {
  if (!outline.ok) return { ok: false, reason: `the tests do not parse: line ${outline.line}: ${outline.message}` };
  const stray = outline.statements.find((s) => s.kind === "other" || s.kind === "future");
  if (stray)
    return {
      ok: false,
      reason: `only imports, functions, classes and tables of cases may stand at top level; found a statement at line ${stray.start}`,
    };
  return { ok: true, value: outline.statements };
}

/** Checks a proposed implementation: exactly the node's symbol, and imports that are only imports. */
export function checkCode(node: RpgNode, code: Outline, imports: Outline): Verdict<void> {
  if (!code.ok) return { ok: false, reason: `the code does not parse: line ${code.line}: ${code.message}` };
  const kind = { function: "def", class: "class", constant: "assign", method: "def" } as const;
  const wanted = kind[symbolKindOf(node)];
  const what = { def: "def", class: "class", assign: "assignment" }[wanted];
  const symbols = code.statements;
  if (symbols.length !== 1 || symbols[0]!.kind !== wanted || symbols[0]!.name !== node.name) {
    const found = symbols.map((s) => (s.name ? `${s.kind} ${s.name}` : `a statement at line ${s.start}`)).join(", ") || "nothing";
    return { ok: false, reason: `the code must be exactly one top-level ${what} named ${node.name}; found ${found}` };
  }
  if (!imports.ok) return { ok: false, reason: `the imports do not parse: ${imports.message}` };
  const notImports = imports.statements.filter((s) => s.kind !== "import" && s.kind !== "future");
  if (notImports.length > 0)
    return { ok: false, reason: `"imports" may hold only import statements; item ${notImports[0]!.start} is not one` };
  return { ok: true, value: undefined };
}
