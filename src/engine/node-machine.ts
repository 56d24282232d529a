import { importFor, isStdlib, missingNames, organizeImports, usedNames, withoutSelfImports } from "../assembly/imports.js";
import { findTestBlock, upsertTestBlock } from "../assembly/test-blocks.js";
import { askStructured, type StructuredResult } from "../llm/structured.js";
import { addUsage, ZERO_USAGE, type ModelMessage, type TokenUsage } from "../llm/provider.js";
import { DIAGNOSIS_KIND, diagnosisPrompt } from "../llm/requests/diagnosis.js";
import { FIX_KIND, fixPrompt, IMPLEMENTATION_KIND, implementationPrompt, type FixReply } from "../llm/requests/implementation.js";
import type { NodePromptContext } from "../llm/requests/node-context.js";
import { TESTS_KIND, testsPrompt } from "../llm/requests/tests.js";
import { estimateTokens, redactMessages } from "../llm/redact.js";
import { normalizePath } from "../rpg/paths.js";
import type { RpgNode } from "../rpg/schema.js";
import { symbolKindOf } from "../rpg/symbol-kind.js";
import type { PytestResult } from "../sandbox/pytest.js";
import type { Tampering } from "../workspace/package-files.js";
import { addImports, memberCode, replaceMember, replaceSymbol, stubFor } from "../workspace/python-edit.js";
import { placeSupportCode, readSupportCode } from "../workspace/support-code.js";
import { moduleOf } from "../assembly/layout.js";
import { outlinePython, type TopLevelStatement } from "../workspace/python-outline.js";
import type { NodeExecutor, NodeOutcome } from "./events.js";
import { failureBrief, outcomeLine, type AttemptNote } from "./failure-brief.js";
import { reviewImplementation, reviewTests } from "../review/reply-review.js";
import { checkCode, checkTests } from "./proposals.js";
import { greenGateRoute, ownedTestsProblem, redGateRoute } from "./routes.js";
import type { TddSetup } from "./tdd-setup.js";

/** A proposed implementation or fix, or why there is none. */
type Proposal = { ok: true; imports: string[]; code: string; support: string; tried: string } | { ok: false; reason: string };

type RequestKind = typeof TESTS_KIND | typeof IMPLEMENTATION_KIND | typeof FIX_KIND | typeof DIAGNOSIS_KIND;

/**
 * The TDD loop for one leaf (PRD epic 4.2): tests from the docstring; a red gate
 * against a stub; the implementation; a green gate; then at most `maxIterations`
 * fixes, each fed the failure brief. A node that does not pass leaves nothing
 * behind: every file it touched is restored to the byte.
 */
export function createTddExecutor(setup: TddSetup): NodeExecutor {
  return async (node, context) => {
    const testFile = setup.testFileOf(node.id);
    const implFile = normalizePath(node.file_path);
    const snapshot = await setup.files.snapshot([testFile, implFile]);
    const run = new NodeRun(setup, node, testFile, implFile, context.signal);
    try {
      const outcome = await run.execute().catch((error: unknown) => {
        if (error instanceof FinalRefusal || error instanceof Tampered) return run.failed(error.iterations, error.message);
        throw error;
      });
      if (outcome.status !== "passed") await snapshot.restore();
      return outcome;
    } catch (error) {
      await snapshot.restore();
      if (context.signal.aborted) return { status: "interrupted" };
      throw error;
    }
  };
}

/** A request that no retry can answer (a cassette without the reply): the node fails at once, naming it. */
class FinalRefusal extends Error {
  constructor(
    message: string,
    readonly iterations: number,
  ) {
    super(message);
  }
}

/** Files in the work tree changed behind the engine's back while the node's tests ran: the node fails, whatever pytest said. */
class Tampered extends Error {
  constructor(
    tampering: Tampering,
    readonly iterations: number,
  ) {
    const list = (what: string, paths: string[]): string[] => (paths.length > 0 ? [`${what} ${paths.slice(0, 5).join(", ")}`] : []);
    const found = [...list("changed", tampering.changed), ...list("added", tampering.added), ...list("removed", tampering.removed)];
    super(`tampering: while the tests ran, something other than rpg-forge ${found.join("; ")} (undone)`);
  }
}

class NodeRun {
  private iterations = 0;
  private usage: TokenUsage = { ...ZERO_USAGE };
  private readonly notes: AttemptNote[] = [];
  private readonly prompt: NodePromptContext;
  private testIds: string[] = [];
  private testsCode = "";
  private testAttempts = 0;
  /** The last accepted code and support code, apart, as the review takes them; undefined before the first. */
  private lastReply: { code: string; support: string } | undefined;
  /** What the model last proposed, as the fix prompt and the failure context show it: support code above the symbol. */
  private get lastCode(): string | undefined {
    if (!this.lastReply) return undefined;
    const { code, support } = this.lastReply;
    return support.trim() === "" ? code : `${support.trimEnd()}\n\n\n${code}`;
  }
  /** For a method: its class. */
  private readonly owner: { name: string; signature: string } | undefined;
  /** The top-level names the node's accepted code defines in its module: its symbol and its support code's. */
  private owns: string[] = [];
  /** The module with the node's stub in place: every proposal is applied to this, so an import a failed attempt added does not outlive it. */
  private baseline: string | undefined;

  constructor(
    private readonly setup: TddSetup,
    private readonly node: RpgNode,
    private readonly testFile: string,
    private readonly implFile: string,
    private readonly signal: AbortSignal,
  ) {
    this.prompt = setup.promptContext(node);
    this.owner = this.prompt.owner;
  }

  async execute(): Promise<NodeOutcome> {
    const red = await this.writeFailingTests();
    if (!red.ok) return this.failed(0, red.reason);

    let iterations = 0;
    const first = await this.ask(IMPLEMENTATION_KIND, implementationPrompt(this.prompt, this.testsCode));
    let proposal: Proposal = first.ok ? { ok: true, ...first.value, tried: first.value.notes } : first;
    for (;;) {
      this.iterations = iterations;
      let result: PytestResult | undefined;
      let outcome: string;
      const tried = proposal.ok ? proposal.tried : "";
      const applied = proposal.ok ? await this.applyCode(proposal.imports, proposal.code, proposal.support) : proposal;
      if (applied.ok) {
        result = await this.runTests();
        let route = greenGateRoute(result, this.testFile, this.testIds);
        if (route === "failing" && (await this.addMissingImports(result))) {
          result = await this.runTests();
          route = greenGateRoute(result, this.testFile, this.testIds);
        }
        await this.setup.artifacts.save(this.node.id, `green-gate-${route}`, {
          [this.implFile.split("/").pop()!]: await this.setup.files.read(this.implFile),
          "pytest-output.txt": result.output,
          "junit.xml": result.junitXml,
        });
        if (route === "green") return this.passed(iterations, result);
        if (route === "environment") return this.failed(iterations, `the test environment failed (pytest exit ${result.exitCode})`, result);
        outcome = (result.exitCode === 0 ? ownedTestsProblem(result, this.testIds, "passed") : undefined) ?? outcomeLine(result);
      } else {
        outcome = `refused: ${applied.reason}`;
      }
      this.notes.push({ label: iterations === 0 ? "implementation" : `fix ${iterations}`, tried: tried || "(no notes)", outcome });
      if (iterations >= this.setup.maxIterations) {
        return this.failed(
          iterations,
          `tests still failing after ${iterations} debug iteration${iterations === 1 ? "" : "s"}: ${outcome}`,
          result,
        );
      }
      const fault = iterations === Math.ceil(this.setup.maxIterations / 2) && result ? await this.testFault(result) : undefined;
      if (fault !== undefined) {
        // New tests make the old code and brief moot: implement afresh against them.
        const again = await this.writeFailingTests(`a diagnosis found the previous tests at fault: ${fault}`);
        if (!again.ok) return this.failed(iterations, again.reason);
        const fresh = await this.ask(IMPLEMENTATION_KIND, implementationPrompt(this.prompt, this.testsCode));
        iterations++;
        proposal = fresh.ok ? { ok: true, ...fresh.value, tried: fresh.value.notes } : fresh;
        continue;
      }
      const last = result;
      const refusal = `Your last proposal was refused: ${outcome.replace(/^refused: /, "")}`;
      const fix = await this.askFix((chars) => (last ? this.brief(last, chars) : refusal));
      iterations++;
      proposal = fix.ok ? { ok: true, ...fix.value, tried: fix.value.explanation } : fix;
    }
  }

  /** Steps 1 and 2: tests that fail against a stub, regenerated up to the limit when vacuous or broken. */
  private async writeFailingTests(why?: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    let rejection = why;
    while (this.testAttempts < this.setup.maxTestAttempts) {
      this.testAttempts++;
      const reply = await this.ask(TESTS_KIND, testsPrompt(this.prompt, rejection));
      if (!reply.ok) {
        rejection = reply.reason;
        continue;
      }
      const checked = await this.placeTests(reply.value.test_code);
      if (!checked.ok) {
        rejection = checked.reason;
        continue;
      }
      const result = await this.runTests();
      const route = redGateRoute(result, this.testFile, this.testIds);
      await this.setup.artifacts.save(this.node.id, `red-gate-${route}`, {
        "pytest-output.txt": result.output,
        "junit.xml": result.junitXml,
      });
      if (route === "red") return { ok: true };
      if (route === "environment")
        return {
          ok: false,
          reason: `the test environment failed at the red gate (pytest exit ${result.exitCode}): ${outcomeLine(result)}`,
        };
      rejection =
        route === "vacuous"
          ? "the tests passed against a stub that raises NotImplementedError, so they test nothing"
          : `the test file is broken (pytest exit ${result.exitCode}${this.reportProblem(result)}):\n${result.output.slice(-3000)}`;
      this.notes.push({ label: `tests ${this.testAttempts}`, tried: "tests", outcome: rejection.split("\n")[0]! });
    }
    return {
      ok: false,
      reason: `no usable failing tests after ${this.setup.maxTestAttempts} attempts: ${rejection?.split("\n")[0] ?? ""}`,
    };
  }

  /** Writes the tests into the node's block and the stub into its file; the engine decides what is accepted. */
  private async placeTests(code: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    // First: a reply the review refuses (a lone surrogate, a forged marker) never reaches the outline's parser either.
    const reviewed = await reviewTests(this.setup.python, code, this.registrars());
    if (!reviewed.ok) return { ok: false, reason: `the review refused the tests: ${reviewed.reason}` };
    const current = (await this.setup.files.read(this.testFile)) ?? "";
    const others = await this.otherTestNames(current);
    const verdict = checkTests(this.node, this.testFile, await outlinePython(this.setup.python, code), others);
    if (!verdict.ok) return verdict;
    this.testIds = verdict.value;
    this.testsCode = code;
    await this.setup.files.write(this.testFile, upsertTestBlock(current, this.node.id, code));
    this.baseline = undefined;
    const stubbed = await this.applyCode([], stubFor(this.node.name, symbolKindOf(this.node)), "", false);
    if (stubbed.ok) this.baseline = await this.setup.files.read(this.implFile);
    return stubbed.ok ? { ok: true } : stubbed;
  }

  private async otherTestNames(source: string): Promise<Set<string>> {
    const outline = await outlinePython(this.setup.python, source);
    if (!outline.ok) return new Set();
    const own = findTestBlock(source, this.node.id);
    return new Set(outline.statements.filter((s) => s.name && !(own && s.start >= own.start && s.end <= own.end)).map((s) => s.name!));
  }

  /**
   * Step 3: the symbol replaced in its file, with its support code around it; other nodes' code
   * and imports left as they were. Every proposal starts from the baseline (the module with the
   * stub), so a fix's support code replaces the last attempt's rather than adding to it.
   */
  private async applyCode(
    imports: string[],
    code: string,
    support: string,
    proposed = true,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const python = this.setup.python;
    const before = (proposed ? this.baseline : undefined) ?? (await this.setup.files.read(this.implFile)) ?? "";
    // The checks that need only the reply and the module as it is go to the helpers at once: the
    // worker pool sends calls made together in one round trip.
    const review = (lines: readonly string[]) =>
      Promise.all([
        proposed ? reviewImplementation(python, code, lines.join("\n"), { support, registrars: this.registrars() }) : undefined,
        outlinePython(python, lines.join("\n")),
      ]);
    const [filtered, codeOutline, extra, outline, edgeImports, asProposed] = await Promise.all([
      // A name the module defines needs no import: importing it is an import of the module by itself,
      // which fails at load time. A package's __init__.py keeps `from pkg import submodule`.
      withoutSelfImports(python, imports, {
        module: this.prompt.module,
        isPackage: /(^|\/)__init__\.py$/.test(this.implFile),
        source: before,
        names: [this.owner?.name ?? this.node.name],
      }),
      outlinePython(python, code),
      readSupportCode(python, support, this.node.name),
      outlinePython(python, before),
      this.edgeImports(code),
      // Reviewed with the imports as proposed, in the same round trip; asked again in the rare case that
      // some were imports of the module by itself, so that the review sees what is applied.
      review(imports),
    ]);
    const selfImported = filtered.length !== imports.length || filtered.some((line, i) => line !== imports[i]);
    imports = filtered;
    const [reviewed, importsOutline] = selfImported ? await review(imports) : asProposed;
    if (reviewed && !reviewed.ok) return { ok: false, reason: `the review refused the code: ${reviewed.reason}` };
    const verdict = checkCode(this.node, codeOutline, importsOutline);
    if (!verdict.ok) return verdict;
    if (!extra.ok) return { ok: false, reason: `the support code was refused: ${extra.problems.slice(0, 3).join("; ")}` };
    if (!outline.ok)
      return { ok: false, reason: `${this.implFile} does not parse before the edit: line ${outline.line}: ${outline.message}` };
    const taken = new Set(
      outline.statements.flatMap((st) => st.names ?? (st.name ? [st.name] : [])).filter((name) => name !== this.node.name),
    );
    const clashes = extra.names.filter((name) => taken.has(name) || name === this.node.name);
    if (clashes.length > 0)
      return {
        ok: false,
        reason: `the support code defines ${clashes.join(", ")}, which ${this.implFile} already has; choose other names`,
      };
    const put = await this.putSymbol(before, outline.statements, code);
    if (!put.ok) return put;
    const swappedOutline = await outlinePython(python, put.source);
    // Support code goes around the top-level statement that holds the symbol: the class, for a method.
    const holder = this.owner?.name ?? this.node.name;
    const symbol = swappedOutline.ok ? swappedOutline.statements.find((st) => st.name === holder) : undefined;
    const replaced = symbol ? placeSupportCode(put.source, symbol.start, symbol.end, extra) : put.source;
    // The same text parses the same: without support code to place, the outline at hand is the one.
    const replacedOutline = replaced === put.source ? swappedOutline : await outlinePython(python, replaced);
    if (!replacedOutline.ok)
      return { ok: false, reason: `the edited file would not parse: line ${replacedOutline.line}: ${replacedOutline.message}` };
    // The model's imports plus those the RPG's edges imply for dependencies the code
    // uses, in PEP 8 order; where the block cannot be reordered, they are only added.
    const organized = await organizeImports(python, replaced, this.setup.localPackages, [...imports, ...edgeImports]);
    const after =
      organized.reason === undefined ? organized.source : addImports(replaced, replacedOutline.statements, [...imports, ...edgeImports]);
    // organizeImports parses what it returns (and returns the parsed `replaced` when it changes nothing): only the
    // fallback's text is new.
    if (organized.reason !== undefined) {
      const final = await outlinePython(python, after);
      if (!final.ok) return { ok: false, reason: `the edited file would not parse: line ${final.line}: ${final.message}` };
    }
    await this.setup.files.write(this.implFile, after);
    if (proposed) {
      this.lastReply = { code, support };
      this.owns = [this.owner ? `${this.owner.name}.${this.node.name}` : this.node.name, ...extra.names];
    }
    return { ok: true };
  }

  /**
   * The module with the node's symbol in place: a function, class or constant replaces its
   * top-level statement; a method goes into its class. A class keeps the methods its method
   * nodes put into it, so that regenerating the class does not take them away.
   */
  private async putSymbol(
    source: string,
    statements: TopLevelStatement[],
    code: string,
  ): Promise<{ ok: true; source: string } | { ok: false; reason: string }> {
    if (this.owner) {
      const klass = statements.find((st) => st.kind === "class" && st.name === this.owner!.name);
      if (!klass) return { ok: false, reason: `class ${this.owner.name} is not in ${this.implFile} yet` };
      return { ok: true, source: replaceMember(source, klass, this.node.name, code) };
    }
    const methods = symbolKindOf(this.node) === "class" ? this.setup.methodsOf(this.node) : [];
    if (methods.length > 0) {
      const proposed = await outlinePython(this.setup.python, code);
      const own = proposed.ok ? (proposed.statements[0]?.members ?? []).filter((m) => methods.includes(m.name)) : [];
      if (own.length > 0)
        return {
          ok: false,
          reason: `${own.map((m) => m.name).join(", ")} ${own.length === 1 ? "is a node" : "are nodes"} of its own: leave it out of the class`,
        };
    }
    const old = statements.find((st) => st.kind === "class" && st.name === this.node.name);
    const carried = methods.flatMap((m) => {
      const text = old ? memberCode(source, old, m) : undefined;
      return text === undefined ? [] : [[m, text] as const];
    });
    let next = replaceSymbol(source, statements, this.node.name, code);
    for (const [name, text] of carried) {
      const outline = await outlinePython(this.setup.python, next);
      const klass = outline.ok ? outline.statements.find((st) => st.kind === "class" && st.name === this.node.name) : undefined;
      if (klass) next = replaceMember(next, klass, name, text);
    }
    return { ok: true, source: next };
  }

  /** The package's own functions support code may call at import to register its helpers: the node's dependencies and its own symbol. */
  private registrars(): { name: string; path: string }[] {
    const own = { name: this.node.name, path: `${this.prompt.module}.${this.node.name}` };
    return [
      own,
      ...this.setup.dependenciesOf(this.node).map((dep) => ({ name: dep.name, path: `${moduleOf(dep.file_path)}.${dep.name}` })),
    ];
  }

  /** `from <module> import <name>` for each dependency in another module that the code uses. */
  private async edgeImports(code: string): Promise<string[]> {
    const deps = this.setup.dependenciesOf(this.node);
    const used = new Set(
      await usedNames(
        this.setup.python,
        code,
        deps.map((d) => d.name),
      ),
    );
    // A method is reached through its class, never imported by its own name.
    return deps.filter((d) => used.has(d.name) && symbolKindOf(d) !== "method").flatMap((d) => importFor(d, this.node) ?? []);
  }

  /**
   * A NameError for a dependency or a standard-library module is a missing import,
   * not a wrong implementation: add it and run again without spending an iteration.
   */
  private async addMissingImports(result: PytestResult): Promise<boolean> {
    const { names } = missingNames(result.output);
    if (names.length === 0) return false;
    const lines: string[] = [];
    for (const dep of this.setup.dependenciesOf(this.node))
      if (names.includes(dep.name) && symbolKindOf(dep) !== "method") lines.push(...(importFor(dep, this.node) ?? []));
    for (const name of names) if (await isStdlib(this.setup.python, name)) lines.push(`import ${name}`);
    if (lines.length === 0) return false;
    // An import the engine adds is held to the review like one the model proposed (no `import signal` by the back door).
    const { code, support } = this.lastReply ?? { code: "", support: "" };
    if (!(await reviewImplementation(this.setup.python, code, lines.join("\n"), { support, registrars: this.registrars() })).ok)
      return false;
    const source = (await this.setup.files.read(this.implFile)) ?? "";
    const organized = await organizeImports(this.setup.python, source, this.setup.localPackages, lines);
    if (!organized.changed || organized.reason !== undefined) return false;
    await this.setup.files.write(this.implFile, organized.source);
    this.notes.push({ label: "imports", tried: `added ${lines.join("; ")}`, outcome: "tests run again" });
    return true;
  }

  /**
   * One gate run. Only the node's own block is in its test file while it runs, so no
   * other node's tests are collected with it; afterwards the work tree must hold
   * exactly what the engine wrote, or the node fails as tampering.
   */
  private async runTests(): Promise<PytestResult> {
    this.throwIfAborted();
    const files = this.setup.files;
    const full = (await files.read(this.testFile)) ?? "";
    await files.write(this.testFile, ownBlockOnly(full, this.node.id));
    let tampering: Tampering | undefined;
    try {
      const result = await this.setup.runTests(this.testIds, this.signal);
      // A run stopped by Ctrl-C is no verdict on the node: it stays in progress, to be tried again on resume.
      this.throwIfAborted();
      tampering = await files.verify();
      if (!tampering) return result;
    } finally {
      await files.write(this.testFile, full);
    }
    throw new Tampered(tampering, this.iterations);
  }

  private reportProblem(result: PytestResult): string {
    return result.report.authentic ? "" : `; ${result.report.problem}`;
  }

  /** Half-way through the debug loop, one diagnosis: the reason when the tests are what is wrong (and may be written again). */
  private async testFault(result: PytestResult): Promise<string | undefined> {
    if (this.testAttempts >= this.setup.maxTestAttempts) return undefined;
    const current = this.lastCode ?? "";
    const reply = await this.ask(DIAGNOSIS_KIND, diagnosisPrompt(this.prompt, this.testsCode, current, this.brief(result)));
    const verdict = reply.ok ? reply.value.verdict : "unclear";
    this.notes.push({ label: "diagnosis", tried: reply.ok ? reply.value.reason : reply.reason, outcome: verdict });
    return verdict === "test_issue" && reply.ok ? reply.value.reason : undefined;
  }

  /** `brief(chars)` renders the failure brief with that much pytest output; it shrinks until the prompt fits the budget. */
  private async askFix(brief: (outputChars: number) => string): Promise<StructuredResult<FixReply>> {
    const current = this.lastCode ?? "";
    // Shrink the pytest excerpt first: the brief's head (failing tests, history) matters most.
    let messages = fixPrompt(this.prompt, this.testsCode, current, brief(6000));
    for (const chars of [2000, 500, 0]) {
      if (estimateTokens(messages) <= this.setup.tokenBudget) break;
      messages = fixPrompt(this.prompt, this.testsCode, current, brief(chars));
    }
    return this.ask(FIX_KIND, messages);
  }

  private brief(result: PytestResult, outputChars?: number): string {
    return failureBrief(result, this.notes, this.setup.files.root, outputChars);
  }

  /** One structured request: secrets redacted, the budget enforced, every exchange kept as an artifact. */
  private async ask<K extends RequestKind>(kind: K, raw: ModelMessage[]): Promise<StructuredResult<ReturnType<K["schema"]["parse"]>>> {
    this.throwIfAborted();
    const messages = redactMessages(raw);
    const tokens = estimateTokens(messages);
    if (tokens > this.setup.tokenBudget) {
      return {
        ok: false,
        reason: `the ${kind.kind} prompt needs about ${tokens} tokens, over the budget of ${this.setup.tokenBudget}`,
        usage: { ...ZERO_USAGE },
        exchanges: [],
      };
    }
    const { keys, provider } = this.setup;
    const key = keys.next(this.node.id, kind.kind);
    const request = { key, schemaName: kind.schemaName, jsonSchema: this.setup.jsonSchemaOf(kind.schema), messages };
    // A kind may read replies more leniently than it asks (a field recorded cassettes lack).
    const accepts = "accepts" in kind ? kind.accepts : kind.schema;
    const result = await askStructured(provider, request, accepts as never, {
      nextAttempt: () => keys.next(this.node.id, kind.kind).attempt,
      signal: this.signal,
    });
    this.usage = addUsage(this.usage, result.usage);
    await this.setup.artifacts.save(this.node.id, `${kind.kind}-${key.attempt}`, {
      "exchanges.json": JSON.stringify(result.exchanges, null, 2),
      "accepted.json": result.ok ? JSON.stringify(result.value, null, 2) : undefined,
      "refused.txt": result.ok ? undefined : result.reason,
    });
    if (!result.ok && result.final) throw new FinalRefusal(result.reason, this.iterations);
    return result as StructuredResult<ReturnType<K["schema"]["parse"]>>;
  }

  private throwIfAborted(): void {
    if (this.signal.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new Error("interrupted");
  }

  private passed(iterations: number, result: PytestResult): NodeOutcome {
    const passed = result.report.authentic ? [...result.report.outcomes.values()].filter((o) => o === "passed").length : 0;
    return { status: "passed", iterations, testResults: { passed, failed: 0 }, usage: this.usage, owns: this.owns };
  }

  failed(iterations: number, reason: string, result?: PytestResult): NodeOutcome {
    const failing = result?.tests.filter((t) => t.status === "failed" || t.status === "error") ?? [];
    return {
      status: "failed",
      iterations,
      reason,
      usage: this.usage,
      testResults: { passed: (result?.tests.length ?? 0) - failing.length, failed: failing.length },
      context: {
        failingTests: failing.map((t) => ({ name: t.name, message: (t.message ?? "").slice(0, 500) })),
        output: (result?.output ?? "").slice(-4000),
        lastCode: this.lastCode,
        attempts: this.notes,
      },
    };
  }
}

/** The node's block alone (its own imports included), as its test file reads while its gate runs. */
function ownBlockOnly(source: string, nodeId: string): string {
  const block = findTestBlock(source, nodeId);
  if (!block) return source;
  return `${source
    .split("\n")
    .slice(block.start - 1, block.end)
    .join("\n")}\n`;
}
