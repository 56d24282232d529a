import { createHash } from "node:crypto";
import { withoutSymbols } from "../assembly/module-subset.js";
import { moduleOf, signatureOf } from "../assembly/layout.js";
import { INTEGRATION_TESTS_KIND, integrationTestsPrompt, type IntegrationPromptContext } from "../llm/requests/integration-tests.js";
import type { Plan, PlannedSubgraph } from "../plan/plan.js";
import { subgraphEnds, type SubgraphEnds } from "../plan/subgraph-ends.js";
import { meetsIntegrationThreshold, type Integration } from "../record/integration.js";
import { reviewTests } from "../review/reply-review.js";
import type { PytestResult } from "../sandbox/pytest.js";
import { outlinePython } from "../workspace/python-outline.js";
import type { Checkpoint } from "./checkpoint.js";
import type { RunEventListener } from "./events.js";
import { FinalRefusal, NodeModel } from "./node-model.js";
import { checkIntegrationTests } from "./proposals.js";
import { isCaseOf, ownedTestsProblem } from "./routes.js";
import { ownerOf, type TddSetup } from "./tdd-setup.js";

/** Requests for a subgraph's tests: the first, and one more that is told why the first were not accepted. */
const MAX_REQUESTS = 2;
/** Runs of the shipped file: a test that passed beside the others may fail without them, and then goes too. */
const MAX_SHIP_RUNS = 3;
/** Failing cases a record lists; the count says how many there were. */
const LISTED_FAILURES = 10;
const MESSAGE_CHARS = 300;

export interface IntegrationTestsOptions {
  setup: TddSetup;
  plan: Plan;
  /** The nodes this run visits: a subgraph with none of them is another job's (matrix mode). */
  visited: ReadonlySet<string>;
  /** A subgraph's integration test file (tests/integration/test_<subgraph>.py). */
  testFileOf(subgraphId: string): string;
  /** Runs `targets` in a fresh copy of the output with `files` laid over it: passed code only, as the subgraph commit holds it. */
  runTests(files: ReadonlyMap<string, string>, targets: readonly string[], signal: AbortSignal): Promise<PytestResult>;
  /** Puts the shipped file in the output, or takes an earlier one out (null). */
  ship(path: string, content: string | null): Promise<void>;
  onEvent?: RunEventListener | undefined;
}

/** Generated tests that ran: the cases, and the code they ran as. */
interface TestRun {
  code: string;
  passed: string[];
  failing: { name: string; message: string }[];
}

/**
 * Integration tests per subgraph (PRD epic 4.5, decision 0024). Once every leaf of a subgraph has
 * passed, the model writes tests that follow the data from its entry nodes to its exit nodes; they run
 * in the sandbox against the output, which holds only passed code. The subgraph is validated when 80%
 * of the cases pass, and only the passing tests ship, run again as shipped, so that its pull request's
 * suite passes. A measure and a file for people, never a verdict on the nodes.
 */
export class IntegrationTests {
  constructor(private readonly options: IntegrationTestsOptions) {}

  /**
   * Tests each complete subgraph whose leaves all passed and whose record is missing or older than its
   * leaves' latest attempts; returns the subgraphs whose records changed. A subgraph one of whose nodes
   * is `unannounced` waits for that node's line. An interruption leaves the subgraph to the resume.
   */
  async testCompleted(checkpoint: Checkpoint, signal: AbortSignal, unannounced: ReadonlySet<string> = new Set()): Promise<string[]> {
    const changed: string[] = [];
    for (const subgraph of this.options.plan.subgraphs) {
      if (signal.aborted) break;
      if (!subgraph.nodes.some((id) => this.options.visited.has(id)) || subgraph.nodes.some((id) => unannounced.has(id))) continue;
      const ends = subgraphEnds(this.options.plan, subgraph);
      if (ends.leaves.length === 0 || !ends.leaves.every((id) => checkpoint.nodes[id]?.status === "passed")) continue;
      const basis = basisOf(ends.leaves, checkpoint);
      if (checkpoint.integration?.[subgraph.id]?.basis === basis) continue;
      const record = await this.test(subgraph, ends, basis, signal);
      if (!record) break;
      checkpoint.integration = { ...checkpoint.integration, [subgraph.id]: record };
      changed.push(subgraph.id);
      this.options.onEvent?.({
        type: "integration-tested",
        subgraphId: subgraph.id,
        status: record.status,
        passed: record.passed,
        total: record.total,
        shipped: record.shipped,
        ...(record.note ? { note: record.note } : {}),
      });
    }
    return changed;
  }

  /** One subgraph's record; undefined when the run was interrupted. */
  private async test(subgraph: PlannedSubgraph, ends: SubgraphEnds, basis: string, signal: AbortSignal): Promise<Integration | undefined> {
    const file = this.options.testFileOf(subgraph.id);
    const model = new NodeModel(this.options.setup, subgraph.id, signal);
    const base = { entries: ends.entries, exits: ends.exits, basis };
    let outcome: TestRun | { note: string };
    try {
      outcome = await this.generate(model, this.promptContext(subgraph, ends, file), file, signal);
    } catch (error) {
      if (signal.aborted) return undefined;
      if (!(error instanceof FinalRefusal)) throw error;
      outcome = { note: `the model gave no tests: ${error.message}` };
    }
    if (signal.aborted) return undefined;
    const tokens = { prompt: model.usage.promptTokens, completion: model.usage.completionTokens, total: model.usage.totalTokens };
    if ("note" in outcome) {
      await this.options.ship(file, null);
      return { status: "not_validated", ...base, total: 0, passed: 0, shipped: 0, failing: [], note: outcome.note, tokens };
    }
    const total = outcome.passed.length + outcome.failing.length;
    const shipped = await this.shippable(outcome, file, signal);
    if (signal.aborted) return undefined;
    await this.options.ship(file, shipped ? shipped.code : null);
    const record: Integration = {
      status: meetsIntegrationThreshold(outcome.passed.length, total) ? "validated" : "not_validated",
      ...base,
      total,
      passed: outcome.passed.length,
      shipped: shipped?.passed.length ?? 0,
      failing: outcome.failing.slice(0, LISTED_FAILURES),
      tokens,
    };
    if (shipped) record.file = file;
    const notes = [
      ...(!shipped && outcome.passed.length > 0 ? ["the passing tests did not all pass again on their own, so none ship"] : []),
      ...(outcome.failing.length > LISTED_FAILURES
        ? [`${outcome.failing.length} cases failed; the first ${LISTED_FAILURES} are listed`]
        : []),
    ];
    if (notes.length > 0) record.note = notes.join("; ");
    return record;
  }

  /** Asks for tests until a set runs (at most MAX_REQUESTS); a note when none did. */
  private async generate(
    model: NodeModel,
    context: IntegrationPromptContext,
    file: string,
    signal: AbortSignal,
  ): Promise<TestRun | { note: string }> {
    let rejection: string | undefined;
    for (let request = 1; request <= MAX_REQUESTS; request++) {
      const reply = await model.ask(INTEGRATION_TESTS_KIND, integrationTestsPrompt(context, rejection));
      if (!reply.ok) {
        rejection = reply.reason;
        continue;
      }
      const checked = await this.check(reply.value.test_code, file);
      if (!checked.ok) {
        rejection = checked.reason;
        continue;
      }
      const run = await this.run(reply.value.test_code, file, checked.value, signal);
      if ("code" in run) return run;
      if (signal.aborted) return { note: "interrupted" };
      rejection = run.broken;
    }
    return { note: `no integration tests ran: ${rejection ?? "no reply"}` };
  }

  /** The review and the shape check every test reply gets; the ids of the proposed tests. */
  private async check(code: string, file: string): Promise<{ ok: true; value: string[] } | { ok: false; reason: string }> {
    const python = this.options.setup.python;
    const reviewed = await reviewTests(python, code);
    if (!reviewed.ok) return { ok: false, reason: `the review refused the tests: ${reviewed.reason}` };
    return checkIntegrationTests(file, await outlinePython(python, code));
  }

  /**
   * One run of `code` as the file, judged on the signed report alone: every proposed test must have
   * a result there, or the file is broken (it does not import, or something cut the run short).
   */
  private async run(code: string, file: string, tests: readonly string[], signal: AbortSignal): Promise<TestRun | { broken: string }> {
    const result = await this.options.runTests(new Map([[file, code]]), [file], signal);
    const report = result.report;
    if (result.timedOut) return { broken: "the run was killed at the time limit" };
    if (!report.authentic) return { broken: `${report.problem}: ${tail(result.output)}` };
    if (report.collectErrors.length > 0 || ![0, 1].includes(result.exitCode))
      return { broken: `pytest exited ${result.exitCode}: ${tail(result.output)}` };
    const missing = ownedTestsProblem(result, tests, "collected");
    if (missing) return { broken: missing };
    const cases = [...report.outcomes].filter(([id]) => tests.some((test) => isCaseOf(id, test)));
    const messages = new Map(result.tests.map((t) => [t.id, t.message ?? t.status]));
    return {
      code,
      passed: cases.filter(([, outcome]) => outcome === "passed").map(([id]) => id),
      failing: cases
        .filter(([, outcome]) => outcome !== "passed")
        .map(([id, outcome]) => ({ name: id, message: (messages.get(id) ?? outcome).slice(0, MESSAGE_CHARS) })),
    };
  }

  /** The passing tests alone, run again as they will ship until every case in them passes; undefined when none is left. */
  private async shippable(first: TestRun, file: string, signal: AbortSignal): Promise<TestRun | undefined> {
    let current = first;
    for (let runs = 0; runs < MAX_SHIP_RUNS; runs++) {
      if (current.passed.length === 0) return undefined;
      // Every case of the code as it ran passed: that code ships, byte for byte.
      if (current.failing.length === 0) return current;
      const failingTests = [...new Set(current.failing.map((f) => topLevelName(f.name, file)))];
      const code = await withoutSymbols(this.options.setup.python, current.code, failingTests);
      const outline = await outlinePython(this.options.setup.python, code);
      const tests = checkIntegrationTests(file, outline);
      if (!tests.ok) return undefined;
      const run = await this.run(code, file, tests.value, signal);
      if (!("code" in run) || signal.aborted) return undefined;
      current = run;
    }
    return current.failing.length === 0 && current.passed.length > 0 ? current : undefined;
  }

  private promptContext(subgraph: PlannedSubgraph, ends: SubgraphEnds, testFile: string): IntegrationPromptContext {
    const { plan } = this.options;
    return {
      id: subgraph.id,
      name: subgraph.name,
      description: subgraph.description,
      testFile,
      entries: ends.entries,
      exits: ends.exits,
      nodes: ends.leaves.map((id) => {
        const node = plan.nodes.get(id)!;
        return {
          id,
          name: node.name,
          module: moduleOf(node.file_path),
          signature: signatureOf(node),
          docstring: node.docstring,
          owner: ownerOf(node, plan)?.name,
          dependsOn: ends.edges.filter(([from]) => from === id).map(([, to]) => to),
        };
      }),
    };
  }
}

/** What a record was made against: each leaf's latest attempt. A new attempt of any of them (a revise, a resume) tests again. */
function basisOf(leaves: readonly string[], checkpoint: Checkpoint): string {
  const attempts = leaves.map((id) => {
    const entry = checkpoint.nodes[id]!;
    return [id, entry.attempts.at(-1)?.started_at ?? entry.timestamp];
  });
  return createHash("sha256").update(JSON.stringify(attempts)).digest("hex").slice(0, 16);
}

/** The top-level test a case belongs to: `file::test_x[1]` and `file::test_x` are both test_x. */
function topLevelName(caseId: string, file: string): string {
  return caseId.slice(file.length + 2).split(/::|\[/)[0]!;
}

function tail(output: string): string {
  const lines = output.trim().split("\n");
  return lines.slice(-12).join("\n");
}
