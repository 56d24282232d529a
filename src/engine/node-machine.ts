import { findTestBlock, upsertTestBlock, withoutTestBlocks } from "../assembly/test-blocks.js";
import type { StructuredResult } from "../llm/structured.js";
import type { ModelMessage } from "../llm/provider.js";
import { diagnosisPrompt } from "../llm/requests/diagnosis.js";
import { PythonIndex } from "../lsp/python-index.js";
import { symbolKindOf } from "../rpg/symbol-kind.js";
import { FIX_KIND, fixPrompt, IMPLEMENTATION_KIND, implementationPrompt, type FixReply } from "../llm/requests/implementation.js";
import type { NodePromptContext } from "../llm/requests/node-context.js";
import { REVIEW_KIND, reviewPrompt } from "../llm/requests/review.js";
import { TESTS_KIND, testsPrompt } from "../llm/requests/tests.js";
import { normalizePath } from "../rpg/paths.js";
import type { RpgNode } from "../rpg/schema.js";
import type { PytestResult } from "../sandbox/pytest.js";
import type { FileSnapshot, Tampering } from "../workspace/package-files.js";
import type { Diagnosis, Review } from "../record/checkpoint.js";
import type { Coverage } from "../record/coverage.js";
import type { TestStrength } from "../record/test-strength.js";
import { outlinePython } from "../workspace/python-outline.js";
import { CodeApplication } from "./code-application.js";
import { measureTestStrength, type BatchVerdict, type MutantVerdict } from "./test-strength.js";
import type { Mutant } from "../workspace/mutants.js";
import { describeSplit, type Vote } from "../record/diagnosis.js";
import { castVotes, tallyVotes } from "./diagnosis-vote.js";
import type { NodeExecutor, NodeOutcome } from "./events.js";
import { failureBrief, outcomeLine, type AttemptNote } from "./failure-brief.js";
import { FIX_CONTEXT_CHARS, type FixContext, type NodeLocalizer } from "./fix-context.js";
import { FinalRefusal, NodeModel } from "./node-model.js";
import { greenGateRoute, isCaseOf, mutantVerdictOf, mutantVerdicts, ownedTestsProblem, redGateRoute } from "./routes.js";
import { MAX_REVIEWS, type TddSetup } from "./tdd-setup.js";
import { judgeTestsReply } from "./tests-reply.js";

/** A proposed implementation or fix, or why there is none. */
type Proposal = { ok: true; imports: string[]; code: string; support: string; tried: string } | { ok: false; reason: string };

/**
 * Where one node's TDD loop stands: the states of decision 0004. Each state does one
 * thing (a model request or a gate run) and names the next; only the gates' routes and
 * the iteration count move a node towards done.
 */
type State =
  /** Ask for tests, `why` the last ones were rejected; on to the red gate. */
  | { step: "tests"; why?: string }
  /** The tests against the stub: they must fail. */
  | { step: "red" }
  /** Ask for an implementation against the accepted tests. */
  | { step: "implement" }
  /** Apply a proposal and run the tests: the node passes, fails, or goes on to a diagnosis or a fix. */
  | { step: "green"; proposal: Proposal }
  /** The first failure against a round of tests, and half-way through the debug loop: where does the fault lie? */
  | { step: "diagnose"; result: PytestResult; outcome: string }
  /** Ask for a fix, given the failure (or why the last proposal was refused). */
  | { step: "fix"; result: PytestResult | undefined; outcome: string }
  /** Passing code, measured, reviewed against its docstring when the review step is on (decision 0027). */
  | { step: "review"; outcome: PassedOutcome }
  | { step: "done"; outcome: NodeOutcome };

type PassedOutcome = Extract<NodeOutcome, { status: "passed" }>;

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
        if (error instanceof FinalRefusal || error instanceof Tampered) return run.failed(error.message);
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

/** Files in the work tree changed behind the engine's back while the node's tests ran: the node fails, whatever pytest said. */
class Tampered extends Error {
  constructor(tampering: Tampering) {
    const list = (what: string, paths: string[]): string[] => (paths.length > 0 ? [`${what} ${paths.slice(0, 5).join(", ")}`] : []);
    const found = [...list("changed", tampering.changed), ...list("added", tampering.added), ...list("removed", tampering.removed)];
    super(`tampering: while the tests ran, something other than rpg-forge ${found.join("; ")} (undone)`);
  }
}

class NodeRun {
  /** Debug iterations spent: each fix, and a fresh implementation after the tests were rewritten. */
  private iterations = 0;
  private readonly notes: AttemptNote[] = [];
  private readonly prompt: NodePromptContext;
  private readonly model: NodeModel;
  private readonly code: CodeApplication;
  private readonly localizer: NodeLocalizer | undefined;
  private testIds: string[] = [];
  private testsCode = "";
  /** Tests requests in the current round of tests. */
  private testAttempts = 0;
  /** Rounds of tests after the first, each asked for by a diagnosis. */
  private rewrites = 0;
  private implemented = false;
  /** Changes undone because they broke the tests of nodes that passed before in the same module. */
  private regressions = 0;
  /** Set by each implementation against a round of tests: its first failure is diagnosed. */
  private diagnosisDue = false;
  private readonly diagnoses: Diagnosis[] = [];
  private readonly reviews: Review[] = [];
  /** The last passing code a review rejected, and its outcome: what the node falls back on if no fix passes. */
  private rejected: { files: FileSnapshot; outcome: PassedOutcome } | undefined;

  constructor(
    private readonly setup: TddSetup,
    private readonly node: RpgNode,
    private readonly testFile: string,
    private readonly implFile: string,
    private readonly signal: AbortSignal,
  ) {
    this.prompt = setup.promptContext(node);
    this.model = new NodeModel(setup, node.id, signal);
    this.code = new CodeApplication(setup, node, this.prompt, implFile);
    this.localizer = setup.localization?.forNode(node, setup.dependenciesOf(node), [implFile, testFile]);
  }

  async execute(): Promise<NodeOutcome> {
    let state: State = { step: "tests" };
    while (state.step !== "done") state = await this.next(state);
    // Code that passed its tests is not lost to a review: when no fix of its objection passes, it stands, flagged.
    if (state.outcome.status === "failed" && this.rejected) return this.standByRejected();
    return state.outcome;
  }

  private next(state: Exclude<State, { step: "done" }>): Promise<State> {
    switch (state.step) {
      case "tests":
        return this.tests(state.why);
      case "red":
        return this.red();
      case "implement":
        return this.implement();
      case "green":
        return this.green(state.proposal);
      case "diagnose":
        return this.diagnose(state.result, state.outcome);
      case "fix":
        return this.fix(state.result, state.outcome);
      case "review":
        return this.review(state.outcome);
    }
  }

  /** Step 1: tests from the docstring, placed in the node's block with its stub; regenerated up to the limit. */
  private async tests(why: string | undefined): Promise<State> {
    if (this.testAttempts >= this.setup.maxTestAttempts)
      return this.done(`no usable failing tests after ${this.setup.maxTestAttempts} attempts: ${why?.split("\n")[0] ?? ""}`);
    this.testAttempts++;
    const reply = await this.model.ask(TESTS_KIND, testsPrompt(this.prompt, why));
    if (!reply.ok) return { step: "tests", why: reply.reason };
    const placed = await this.placeTests(reply.value.test_code);
    return placed.ok ? { step: "red" } : { step: "tests", why: placed.reason };
  }

  /** Step 2: the red gate. Tests that pass against the stub test nothing, and broken ones are asked for again. */
  private async red(): Promise<State> {
    const result = await this.runTests();
    const route = redGateRoute(result, this.testFile, this.testIds);
    await this.setup.artifacts.save(this.node.id, `red-gate-${route}`, {
      "pytest-output.txt": result.output,
      "junit.xml": result.junitXml,
    });
    if (route === "red") return { step: "implement" };
    if (route === "environment")
      return this.done(`the test environment failed at the red gate (pytest exit ${result.exitCode}): ${outcomeLine(result)}`);
    const why =
      route === "vacuous"
        ? "the tests passed against a stub that raises NotImplementedError, so they test nothing"
        : `the test file is broken (pytest exit ${result.exitCode}${this.reportProblem(result)}):\n${result.output.slice(-3000)}`;
    this.notes.push({ label: `tests ${this.testAttempts}`, tried: "tests", outcome: why.split("\n")[0]! });
    return { step: "tests", why };
  }

  /** Step 3: an implementation against the accepted tests; after tests were rewritten, a fresh one counts as an iteration. */
  private async implement(): Promise<State> {
    const reply = await this.model.ask(IMPLEMENTATION_KIND, implementationPrompt(this.prompt, this.testsCode));
    if (this.implemented) this.iterations++;
    this.implemented = true;
    this.diagnosisDue = true;
    return { step: "green", proposal: reply.ok ? { ok: true, ...reply.value, tried: reply.value.notes } : reply };
  }

  /** Step 4: the proposal applied and the green gate run; a refused proposal or failing tests spend the iteration. */
  private async green(proposal: Proposal): Promise<State> {
    const applied = proposal.ok ? await this.code.propose(proposal.imports, proposal.code, proposal.support) : proposal;
    let result: PytestResult | undefined;
    let outcome: string;
    // A regression is judged by what broke, not by votes: the node's own tests passed.
    let diagnosable = true;
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
      if (route === "green") {
        const regression = await this.regressionCheck();
        if (!regression) return this.pass(result);
        // The node's own tests pass, but others' in its module no longer do: the change is undone, and the fix is told what broke.
        this.regressions++;
        await this.code.revert();
        ({ result, outcome } = regression);
        diagnosable = false;
      } else if (route === "environment") {
        return this.done(
          result.timedOut
            ? "the test run was killed at its time limit, which counts as an environment issue"
            : `the test environment failed (pytest exit ${result.exitCode})`,
          result,
        );
      } else {
        outcome = (result.exitCode === 0 ? ownedTestsProblem(result, this.testIds, "passed") : undefined) ?? outcomeLine(result);
      }
    } else {
      outcome = `refused: ${applied.reason}`;
    }
    this.notes.push({
      label: this.iterations === 0 ? "implementation" : `fix ${this.iterations}`,
      tried: (proposal.ok && proposal.tried) || "(no notes)",
      outcome,
    });
    return this.afterFailure(outcome, result, diagnosable);
  }

  /** Passing code, measured (coverage, test strength); reviewed next while reviews are on and left, else the node is done. */
  private async pass(result: PytestResult): Promise<State> {
    const coverage = await this.coverage();
    const outcome = this.passed(result, await this.testStrength(), coverage);
    return this.setup.review && this.reviews.length < MAX_REVIEWS ? { step: "review", outcome } : { step: "done", outcome };
  }

  /**
   * The review step (seed 004, decision 0027): the model judges the passing code against the docstring. An approval (or
   * no verdict) lets it pass; a rejection sends it to the fix step with the reason, the passing code kept to fall back on.
   */
  private async review(outcome: PassedOutcome): Promise<State> {
    const reply = await this.model.ask(REVIEW_KIND, reviewPrompt(this.prompt, this.testsCode, this.code.lastCode ?? ""));
    const iteration = this.iterations;
    if (!reply.ok || reply.value.verdict === "approve") {
      this.reviews.push({ iteration, verdict: reply.ok ? "approved" : "none", reason: reply.ok ? reply.value.reason : reply.reason });
      return { step: "done", outcome: { ...outcome, ...this.history(), usage: this.model.usage } };
    }
    const reason = reply.value.reason;
    this.reviews.push({ iteration, verdict: "rejected", reason });
    this.rejected = { files: await this.setup.files.snapshot([this.testFile, this.implFile]), outcome };
    this.notes.push({ label: `review ${this.reviews.length}`, tried: "review against the docstring", outcome: `rejected: ${reason}` });
    if (this.iterations >= this.setup.maxIterations) return { step: "done", outcome: await this.standByRejected() };
    return { step: "fix", result: undefined, outcome: `refused: a review against the docstring rejected it: ${reason}` };
  }

  /** The code a review rejected, put back as it passed: the node passes with the objection on record, for a person to judge. */
  private async standByRejected(): Promise<PassedOutcome> {
    const { files, outcome } = this.rejected!;
    await files.restore();
    return { ...outcome, iterations: this.iterations, usage: this.model.usage, ...this.history() };
  }

  /** After a failed attempt: the node fails when its iterations are spent; otherwise a diagnosis when one is due, or the fix step. */
  private afterFailure(outcome: string, result: PytestResult | undefined, diagnosable: boolean): State {
    const iterations = this.iterations;
    if (iterations >= this.setup.maxIterations)
      return this.done(`tests still failing after ${iterations} debug iteration${iterations === 1 ? "" : "s"}: ${outcome}`, result);
    // With a run to judge (a refused fix has none): the first failure against these tests, and half-way.
    const halfWay = iterations === Math.ceil(this.setup.maxIterations / 2);
    if (diagnosable && result && (this.diagnosisDue || halfWay)) return { step: "diagnose", result, outcome };
    return { step: "fix", result, outcome };
  }

  /**
   * Regression tests (PRD epic 4.5): once the node's own tests pass, the tests of the other nodes
   * that passed in its module (their blocks in the same test file) run again against the module as
   * the change left it. Undefined when they all pass, or when there are none.
   */
  private async regressionCheck(): Promise<{ result: PytestResult; outcome: string } | undefined> {
    const full = (await this.setup.files.read(this.testFile)) ?? "";
    if (!/^(async\s+)?def test|^class Test/m.test(withoutTestBlocks(full, [this.node.id]))) return undefined;
    const result = await this.runTests([this.testFile]);
    await this.setup.artifacts.save(this.node.id, result.exitCode === 0 ? "regression-check-passed" : "regression-check-failed", {
      "pytest-output.txt": result.output,
      "junit.xml": result.junitXml,
    });
    if (result.exitCode === 0 && result.report.authentic) return undefined;
    const owned = (test: string): boolean => this.testIds.some((id) => isCaseOf(test, id));
    const broken = result.tests.filter((t) => (t.status === "failed" || t.status === "error") && !owned(t.id)).map((t) => t.name);
    const what =
      broken.length > 0
        ? `broke ${broken.slice(0, 5).join(", ")}${broken.length > 5 ? ` and ${broken.length - 5} more` : ""}`
        : `left the other tests of ${this.testFile} failing to run (pytest exit ${result.exitCode}${this.reportProblem(result)})`;
    return { result, outcome: `regression: the change ${what}, tests of nodes that passed before in ${this.implFile}; it was undone` };
  }

  /**
   * A diagnosis by majority vote (decision 0020). Tests that pass when run again unchanged are flaky,
   * whatever a vote would say; otherwise the model judges the failure `diagnosisVotes` times and a
   * majority decides: the fix step, new tests, or a failed node (the environment, or a split that
   * needs a person).
   */
  private async diagnose(result: PytestResult, outcome: string): Promise<State> {
    this.diagnosisDue = false;
    const flaky = await this.flakyTests(result);
    if (flaky.length > 0) {
      this.diagnoses.push({ iteration: this.iterations, votes: [], decision: "flaky", flaky_tests: flaky });
      this.notes.push({ label: "diagnosis", tried: `ran the tests again unchanged: ${flaky.join(", ")} passed`, outcome: "flaky" });
      return this.rewriteTests(`${flaky.join(", ")} failed and then passed unchanged: the tests are flaky`, result);
    }
    const votes = await this.vote(result);
    const asked = this.setup.diagnosisVotes;
    const { decision, count } = tallyVotes(votes, asked);
    this.diagnoses.push({ iteration: this.iterations, votes, decision });
    const why = votes.find((vote) => vote.verdict === decision)?.reason ?? "";
    this.notes.push({ label: "diagnosis", tried: why ? `${describeSplit(votes)}: ${why}` : describeSplit(votes), outcome: decision });
    switch (decision) {
      case "test_issue":
        return this.rewriteTests(`a diagnosis found the previous tests at fault (${count} of ${asked} votes): ${why}`, result);
      case "environment_issue":
        return this.done(`the diagnosis found an environment issue (${count} of ${asked} votes): ${why}`, result);
      case "needs_human_review":
        return this.done(`needs human review: the diagnosis votes split (${describeSplit(votes)})`, result);
      default:
        return { step: "fix", result, outcome };
    }
  }

  /** The failure judged `diagnosisVotes` times at once, at temperatures spread from 0.3 to 0.7; a request that fails casts no vote. */
  private vote(result: PytestResult): Promise<Vote[]> {
    const messages = diagnosisPrompt(this.prompt, this.testsCode, this.code.lastCode ?? "", this.brief(result));
    return castVotes(this.model, messages, this.setup.diagnosisVotes);
  }

  /** The failing tests, when a second run of the same tests and code passes: a failure that is not the code's. */
  private async flakyTests(result: PytestResult): Promise<string[]> {
    if (result.exitCode !== 1 || result.timedOut) return [];
    const again = await this.runTests();
    if (greenGateRoute(again, this.testFile, this.testIds) !== "green") return [];
    return result.tests.filter((t) => t.status === "failed" || t.status === "error").map((t) => t.name);
  }

  /** New tests, while rewrites are left: the code and brief of the old ones are moot, so a fresh implementation follows. */
  private rewriteTests(why: string, result: PytestResult): State {
    if (this.rewrites >= this.setup.maxTestRewrites)
      return this.done(`needs human review: the tests were rewritten ${this.rewrites} times, and ${why}`, result);
    this.rewrites++;
    this.testAttempts = 0;
    return { step: "tests", why };
  }

  /** A fix request with the failure brief, or with why the last proposal was refused. */
  private async fix(result: PytestResult | undefined, outcome: string): Promise<State> {
    const refusal = `Your last proposal was refused: ${outcome.replace(/^refused: /, "")}`;
    const context = await this.localize(result);
    const reply = await this.askFix((chars) => (result ? this.brief(result, chars) : refusal), context);
    // The model's own tool calls, when it made any, after what the engine gathered.
    const asked = context ? this.localizer!.log.entries(this.iterations + 1).slice(context.queries.length) : [];
    if (asked.length > 0)
      await this.setup.artifacts.save(this.node.id, `tool-calls-${this.iterations + 1}`, {
        "queries.json": JSON.stringify(asked, null, 2),
      });
    this.iterations++;
    if (!reply.ok) return { step: "green", proposal: reply };
    const { body, explanation, ...whole } = reply.value;
    if (body.trim() === "") return { step: "green", proposal: { ok: true, ...whole, tried: explanation } };
    const code = await this.withBody(body);
    const proposal: Proposal = code.ok
      ? { ok: true, ...whole, code: code.code, tried: `${explanation} (the body alone)` }
      : { ok: false, reason: code.reason };
    return { step: "green", proposal };
  }

  /**
   * A fix that sends a body alone: the last accepted definition with its body replaced, as the language server's
   * replace_symbol_body does it (Python's parser; every line outside the body kept byte for byte, the result must
   * parse). What comes out is a whole definition, which then goes through every check a whole fix goes through.
   */
  private async withBody(body: string): Promise<{ ok: true; code: string } | { ok: false; reason: string }> {
    const kind = symbolKindOf(this.node);
    const current = this.code.acceptedCode;
    if (kind !== "function" && kind !== "method")
      return {
        ok: false,
        reason: `refused: a body alone is for a function or method; ${this.node.name} is a ${kind}: send its whole definition in "code"`,
      };
    if (current === undefined)
      return {
        ok: false,
        reason: `refused: there is no accepted definition of ${this.node.name} to replace the body of: send the whole definition in "code"`,
      };
    const edit = await new PythonIndex(this.setup.python).replaceBody(current, this.node.name, undefined, body);
    return edit.ok
      ? { ok: true, code: edit.text }
      : { ok: false, reason: `refused: the body could not replace ${this.node.name}'s: ${edit.message}` };
  }

  /** Writes the tests into the node's block and the stub into its file; the engine decides what is accepted. */
  private async placeTests(code: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    const current = (await this.setup.files.read(this.testFile)) ?? "";
    const verdict = await judgeTestsReply({
      python: this.setup.python,
      node: this.node,
      testFile: this.testFile,
      current,
      code,
      registrars: this.code.registrars(),
    });
    if (!verdict.ok) return verdict;
    this.testIds = verdict.value;
    this.testsCode = code;
    await this.setup.files.write(this.testFile, upsertTestBlock(current, this.node.id, code));
    return this.code.placeStub();
  }

  /** A missing import is not a wrong implementation: added, and the tests run again without spending an iteration. */
  private async addMissingImports(result: PytestResult): Promise<boolean> {
    const lines = await this.code.addMissingImports(result);
    if (lines.length === 0) return false;
    this.notes.push({ label: "imports", tried: `added ${lines.join("; ")}`, outcome: "tests run again" });
    return true;
  }

  /**
   * One gate run. Only the node's own block is in its test file while it runs, so no
   * other node's tests are collected with it (a regression check runs `wholeFile` instead);
   * afterwards the work tree must hold exactly what the engine wrote, or the node fails as tampering.
   */
  private runTests(wholeFile?: readonly string[]): Promise<PytestResult> {
    return this.gateRun(wholeFile !== undefined, () => this.setup.runTests(wholeFile ?? this.testIds, this.signal));
  }

  /** A run of generated code: with only the node's block in its test file unless `wholeFile`, and the work tree checked after it. */
  private async gateRun(wholeFile: boolean, run: () => Promise<PytestResult>): Promise<PytestResult> {
    this.throwIfAborted();
    const files = this.setup.files;
    const full = (await files.read(this.testFile)) ?? "";
    if (!wholeFile) await files.write(this.testFile, ownBlockOnly(full, this.node.id));
    let tampering: Tampering | undefined;
    try {
      const result = await run();
      // A run stopped by Ctrl-C is no verdict on the node: it stays in progress, to be tried again on resume.
      this.throwIfAborted();
      tampering = await files.verify();
      if (!tampering) return result;
    } finally {
      await files.write(this.testFile, full);
    }
    throw new Tampered(tampering);
  }

  /**
   * Coverage (decision 0023): the node's own tests once more under coverage.py, counting the node's lines of its
   * module (its symbol, or its method in the class, and its support code). A figure for people, never a verdict;
   * whatever the run left in the work tree is undone, and then it gives no figure.
   */
  private async coverage(): Promise<CoverageRecord> {
    if (!this.setup.measureCoverage) return {};
    const missing = await this.setup.coverageMissing?.();
    if (missing !== undefined) return { coverageNote: missing };
    const source = (await this.setup.files.read(this.implFile)) ?? "";
    const ranges = await nodeLines(this.setup.python, source, this.code.owns);
    if (ranges.length === 0) return {};
    const measured = await this.setup.measureCoverage(this.testIds, this.implFile, ranges, this.signal);
    this.throwIfAborted();
    if (await this.setup.files.verify()) return { coverageNote: "no coverage figure: the run changed files in the package (undone)" };
    if (!measured.available) return { coverageNote: measured.note };
    return { coverage: { lines: measured.lines, branches: measured.branches } };
  }

  /**
   * Test strength (decision 0022): the node's tests run against a few mutants of its code, and the share they
   * kill is measured. A measure shown to people, never a verdict: a mutant run that goes wrong in any way
   * counts as neither killed nor survived, and the module is put back as it was tested, byte for byte.
   */
  private async testStrength(): Promise<TestStrength | undefined> {
    if (this.setup.mutants === 0) return undefined;
    const files = this.setup.files;
    const source = (await files.read(this.implFile)) ?? "";
    // A run that changed files behind the engine tells nothing of the mutants it ran: undone, and each an error.
    const measureOf = async <T>(run: () => Promise<PytestResult>, judge: (result: PytestResult) => T, tampered: T): Promise<T> => {
      try {
        return judge(await this.gateRun(false, run));
      } catch (error) {
        if (error instanceof Tampered) return tampered;
        throw error;
      }
    };
    // All the mutants in one interpreter, each served in place of the module's bytes: the module itself is not written.
    const runMutants = (mutants: readonly Mutant[]): Promise<BatchVerdict[]> =>
      measureOf(
        () =>
          this.setup.runMutants(
            this.testIds,
            this.implFile,
            mutants.map((mutant) => mutant.source),
            this.signal,
          ),
        (result) => mutantVerdicts(result, mutants.length, this.testFile, this.testIds),
        mutants.map((): BatchVerdict => "error"),
      );
    // One mutant written in place of the module, for tests that start a process (it imports the module from disk).
    const runAlone = async (mutant: Mutant): Promise<MutantVerdict> => {
      await files.write(this.implFile, mutant.source);
      try {
        return await measureOf(
          () => this.setup.runTests(this.testIds, this.signal),
          (result) => mutantVerdictOf(result, this.testFile, this.testIds),
          "error",
        );
      } finally {
        // The module as it was tested, byte for byte, whatever happened.
        await files.write(this.implFile, source);
      }
    };
    const owner = this.prompt.owner;
    const symbol = { name: this.node.name, ...(owner ? { owner: owner.name } : {}) };
    const max = this.setup.mutants;
    const { mutants, killed, survivors } = await measureTestStrength({
      python: this.setup.python,
      source,
      symbol,
      runMutants,
      runAlone,
      max,
    });
    await this.setup.artifacts.save(this.node.id, "test-strength", {
      "strength.json": JSON.stringify({ mutants, killed, survivors }, null, 2),
    });
    return mutants > 0 ? { mutants, killed, survivors } : undefined;
  }

  private reportProblem(result: PytestResult): string {
    return result.report.authentic ? "" : `; ${result.report.problem}`;
  }

  /**
   * The localization the next fix is told of (decision 0028): gathered by the engine, within the iteration's query
   * limit, and kept with the node's artifacts. Undefined when the run gathers none.
   */
  private async localize(result: PytestResult | undefined): Promise<FixContext | undefined> {
    if (!this.localizer) return undefined;
    this.throwIfAborted();
    const failing = result?.tests.filter((t) => t.status === "failed" || t.status === "error") ?? [];
    const iteration = this.iterations + 1;
    const context = await this.localizer.gather(iteration, failing);
    await this.setup.artifacts.save(this.node.id, `localization-${iteration}`, {
      "queries.json": JSON.stringify(context.queries, null, 2),
    });
    return context;
  }

  /**
   * `brief(chars)` renders the failure brief with that much pytest output, `context` the localization in so many
   * characters; both shrink, in turns, until the prompt fits the budget.
   */
  private async askFix(brief: (outputChars: number) => string, context: FixContext | undefined): Promise<StructuredResult<FixReply>> {
    const current = this.code.lastCode ?? "";
    const full = FIX_CONTEXT_CHARS;
    // The pytest excerpt shrinks first, then the two take turns: the brief's head (failing tests, history) stays whole.
    const steps: [number, number][] = [
      [6000, full],
      [2000, full],
      [2000, full / 2],
      [500, full / 2],
      [500, full / 4],
      [0, full / 4],
      [0, 0],
    ];
    let messages: ModelMessage[] = [];
    for (const [outputChars, contextChars] of steps) {
      messages = fixPrompt(this.prompt, this.testsCode, current, brief(outputChars), context?.render(contextChars) ?? "");
      if (this.model.fits(messages)) break;
    }
    // Tools offered besides (decision 0030): an endpoint that takes none answers the same prompt without them.
    if (this.setup.fixTools && this.localizer) {
      const reply = await this.model.askWithTools(FIX_KIND, messages, this.localizer.toolBox());
      if (!reply.toolsRefused) return reply;
    }
    return this.model.ask(FIX_KIND, messages);
  }

  private brief(result: PytestResult, outputChars?: number): string {
    return failureBrief(result, this.notes, this.setup.files.root, outputChars);
  }

  private throwIfAborted(): void {
    if (this.signal.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new Error("interrupted");
  }

  private passed(result: PytestResult, testStrength: TestStrength | undefined, coverage: CoverageRecord): PassedOutcome {
    const passed = result.report.authentic ? [...result.report.outcomes.values()].filter((o) => o === "passed").length : 0;
    return {
      status: "passed",
      iterations: this.iterations,
      testResults: { passed, failed: 0 },
      usage: this.model.usage,
      owns: this.code.owns,
      ...this.history(),
      ...(testStrength ? { testStrength } : {}),
      ...coverage,
    };
  }

  /** What the outcome records beyond the verdict, when there is any: the diagnoses, the regressions caught and the reviews. */
  private history(): { diagnoses?: Diagnosis[]; regressions?: number; reviews?: Review[] } {
    return {
      ...(this.diagnoses.length > 0 ? { diagnoses: this.diagnoses } : {}),
      ...(this.regressions > 0 ? { regressions: this.regressions } : {}),
      ...(this.reviews.length > 0 ? { reviews: [...this.reviews] } : {}),
    };
  }

  private done(reason: string, result?: PytestResult): State {
    return { step: "done", outcome: this.failed(reason, result) };
  }

  failed(reason: string, result?: PytestResult): NodeOutcome {
    const failing = result?.tests.filter((t) => t.status === "failed" || t.status === "error") ?? [];
    return {
      status: "failed",
      iterations: this.iterations,
      reason,
      usage: this.model.usage,
      ...this.history(),
      testResults: { passed: (result?.tests.length ?? 0) - failing.length, failed: failing.length },
      context: {
        failingTests: failing.map((t) => ({ name: t.name, message: (t.message ?? "").slice(0, 500) })),
        output: (result?.output ?? "").slice(-4000),
        lastCode: this.code.lastCode,
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

/** What a passed node records of its coverage: the figure, or why there is none. */
type CoverageRecord = { coverage?: Coverage; coverageNote?: string };

/**
 * The node's lines of its module, 1-based and inclusive: the top-level statements of the names it owns (its symbol and
 * its support code's), and for a method (`Class.method`) the method's lines in its class.
 */
async function nodeLines(python: string, source: string, owns: readonly string[]): Promise<[number, number][]> {
  const outline = await outlinePython(python, source);
  if (!outline.ok) return [];
  const ranges: [number, number][] = [];
  for (const name of owns) {
    const [owner, member] = name.includes(".") ? name.split(".", 2) : [undefined, name];
    const statement = outline.statements.find((st) => st.name === (owner ?? member) || (!owner && st.names?.includes(member!)));
    if (!statement) continue;
    const target = owner ? statement.members?.find((m) => m.name === member) : statement;
    if (target) ranges.push([target.start, target.end]);
  }
  return ranges;
}
