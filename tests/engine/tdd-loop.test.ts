import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCheckpoint, type Checkpoint } from "../../src/engine/checkpoint.js";
import type { GenerateResult } from "../../src/engine/generate.js";
import { writeRunReport } from "../../src/report/run-report.js";
import type { ReceivedRequest } from "../helpers/fake-openai-server.js";
import { generateWith, KINDS, kindOf, labLeaf, startScriptedModel, type ScriptedModel, type Scripts } from "../helpers/scripted-model.js";
import { unanimous } from "../helpers/votes.js";
import { packageSuiteIn } from "../helpers/package-suite.js";

/**
 * One generate run over a graph whose every node takes a different route through the
 * red and green gates, answered by a real local HTTP server speaking the OpenAI API.
 */
const SECRET = "sk-live-do-not-leak-0123456789abcdef";

const fn = (name: string, body: string): string => `def ${name}(x):\n    ${body}\n`;
const impl = (name: string, body: string, notes = "ok") => ({ imports: [], code: fn(name, body), notes });
const fix = (name: string, body: string, explanation = "fixed") => ({ imports: [], code: fn(name, body), explanation });
const goodTests = (name: string, cases: [number, number][]) => ({
  test_code: `from lab.${name} import ${name}\n\n\n${cases.map(([x, y], i) => `def test_${name}_${i}():\n    assert ${name}(${x}) == ${y}\n`).join("\n\n")}`,
  notes: "cases",
});

const SCRIPTS: Scripts = {
  // Happy path: tests fail against the stub, the first implementation passes.
  add_one: {
    tests: [{ test_code: "from lab.shared import add_one\n\n\ndef test_add_one():\n    assert add_one(1) == 2\n", notes: "" }],
    implementation: [impl("add_one", "return x + 1")],
  },
  // Never right: 8 fixes, all wrong; diagnosed at its first failure and half-way; its dependent is skipped.
  scale: {
    tests: [{ test_code: "from lab.shared import scale\n\n\ndef test_scale():\n    assert scale(2) == 20\n", notes: "" }],
    implementation: [impl("scale", "return x * 2")],
    fix: Array.from({ length: 8 }, (_, i) => fix("scale", `return x * ${i + 11}`, `try factor ${i + 11}`)),
    diagnosis: unanimous("implementation_bug", "the factor is wrong"),
  },
  uses_scale: { tests: [goodTests("uses_scale", [[1, 1]])], implementation: [impl("uses_scale", "return x")] },
  // Red gate: vacuous tests (exit 0) are regenerated.
  square: {
    tests: [
      { test_code: "from lab.square import square\n\n\ndef test_square_trivial():\n    assert True\n", notes: "" },
      goodTests("square", [[3, 9]]),
    ],
    implementation: [impl("square", "return x * x")],
  },
  // Red gate: a test file that does not import (pytest exit 2, in its own file) is broken.
  cube: {
    tests: [
      { test_code: "from lab.nowhere import cube\n\n\ndef test_cube():\n    assert cube(2) == 8\n", notes: "" },
      goodTests("cube", [[2, 8]]),
    ],
    implementation: [impl("cube", "return x ** 3")],
  },
  // Refused: test names that could clash with other nodes' tests.
  negate: {
    tests: [
      { test_code: "from lab.negate import negate\n\n\ndef test_it():\n    assert negate(1) == -1\n", notes: "" },
      goodTests("negate", [[1, -1]]),
    ],
    implementation: [impl("negate", "return -x")],
  },
  // Tests that end the interpreter (pytest exit 3 on a main that trusted exit codes) are refused by the review, 3 times.
  halve: {
    tests: Array.from({ length: 3 }, () => ({
      test_code: "import os\n\nfrom lab.halve import halve\n\n\ndef test_halve():\n    os._exit(3)\n",
      notes: "",
    })),
  },
  // Green gate: a wrong implementation, then a fix.
  inc: {
    tests: [
      goodTests("inc", [
        [1, 2],
        [5, 6],
      ]),
    ],
    implementation: [impl("inc", "return x + 2")],
    fix: [fix("inc", "return x + 1", "was off by one")],
    diagnosis: unanimous("implementation_bug", "off by one", 5),
  },
  // An implementation that ends the interpreter is refused by the review and costs an attempt; the fix passes.
  dec: {
    tests: [goodTests("dec", [[2, 1]])],
    implementation: [impl("dec", "import os\n    os._exit(3)")],
    fix: [fix("dec", "return x - 1")],
  },
  // Refused implementation: more than the node's own symbol.
  absval: {
    tests: [goodTests("absval", [[-2, 2]])],
    implementation: [{ imports: [], code: `${fn("absval", "return abs(x)")}\n\n${fn("helper", "return x")}`, notes: "" }],
    fix: [fix("absval", "return abs(x)")],
  },
  // A reply that is not JSON is repaired with the error in the prompt.
  sign: { tests: [goodTests("sign", [[-5, -1]])], implementation: ["this is not JSON {", impl("sign", "return (x > 0) - (x < 0)")] },
  // A hanging implementation fails its test at the time limit; the fix goes on.
  spin: {
    tests: [goodTests("spin", [[1, 1]])],
    implementation: [impl("spin", "while True:\n        pass")],
    fix: [fix("spin", "return x")],
    diagnosis: unanimous("implementation_bug", "it never returns", 5),
  },
  // Uses a dependency from another module without importing it: the RPG's edge supplies the import.
  uses_add: { tests: [goodTests("uses_add", [[1, 4]])], implementation: [impl("uses_add", "return add_one(x) * 2")] },
  // Forgets `import math`: the NameError is repaired and the tests rerun, no iteration spent.
  root: { tests: [goodTests("root", [[9, 3]])], implementation: [impl("root", "return int(math.sqrt(x))")] },
  // Tests that never fail against the stub: the node fails after 3 attempts.
  vacuous: {
    tests: Array.from({ length: 3 }, () => ({ test_code: "import lab.vacuous\n\n\ndef test_vacuous():\n    assert True\n", notes: "" })),
  },
};

function nodes() {
  const node = labLeaf;
  return [
    node("add_one", "shared", [], `Add one to x. (The deploy key is ${SECRET}.)`),
    node("scale", "shared"),
    node("uses_scale", "uses_scale", ["scale"]),
    node("uses_add", "uses_add", ["add_one"]),
    node("root", "root"),
    ...["square", "cube", "negate", "halve", "inc", "dec", "absval", "sign", "spin", "vacuous"].map((n) => node(n, n)),
  ];
}

let fake: ScriptedModel;
let out: string;
let result: GenerateResult;
let checkpoint: Checkpoint;
const requestsOf = (node: string, kind?: string): ReceivedRequest[] => fake.requestsOf(node, kind);

beforeAll(async () => {
  fake = await startScriptedModel(SCRIPTS);
  process.env.RPG_FORGE_TEST_DEPLOY_KEY = SECRET;
  // One output for the whole file: the tests below read what the single run left.
  out = mkdtempSync(join(tmpdir(), "rpg-forge-tdd-"));
  // One mutant a passed node: its test-strength artifact is among those the artifacts test expects.
  result = await generateWith(fake, nodes(), out, { perTestTimeoutMs: 1500, mutants: 1 });
  checkpoint = parseCheckpoint(readFileSync(result.checkpointPath, "utf8"), result.checkpointPath);
}, 240_000);

afterAll(async () => {
  delete process.env.RPG_FORGE_TEST_DEPLOY_KEY;
  await fake?.close();
  rmSync(out, { recursive: true, force: true });
});

const entry = (id: string) => checkpoint.nodes[id]!;

describe("the TDD loop, through a real OpenAI-compatible HTTP server", () => {
  it("sends structured-output requests with a stable schema name per kind", () => {
    for (const request of fake.requests) {
      expect(request.path).toBe("/v1/chat/completions");
      expect(request.body.model).toBe("fake-model");
      const format = request.body.response_format as { type: string; json_schema: { name: string; strict: boolean; schema: object } };
      expect(format.type).toBe("json_schema");
      expect(format.json_schema.strict).toBe(true);
      expect(Object.keys(KINDS)).toContain(format.json_schema.name);
    }
  });

  it("passes a node whose first implementation is right, generating tests first", () => {
    expect(entry("add_one")).toMatchObject({
      status: "passed",
      retry_count: 0,
      test_results: { passed: 1, failed: 0 },
      tokens: { total: 240 },
    });
    expect(requestsOf("add_one").map((r) => kindOf(r.body))).toEqual(["tests", "implementation"]);
  });

  it("quotes the docstring as data and never sends a secret", () => {
    const prompt = JSON.stringify(requestsOf("add_one")[0]!.body.messages);
    expect(prompt).toContain("<node>");
    expect(prompt).toContain("Add one to x.");
    expect(prompt).not.toContain(SECRET);
    expect(prompt).toContain("[redacted");
    expect(JSON.stringify(fake.requests.map((r) => r.body))).not.toContain(SECRET);
  });

  it("regenerates vacuous tests (pytest exit 0 against the stub), saying why", () => {
    expect(entry("square").status).toBe("passed");
    const second = JSON.stringify(requestsOf("square", "tests")[1]!.body.messages);
    expect(second).toContain("they test nothing");
  });

  it("regenerates a test file that does not import (exit 2 in its own file)", () => {
    expect(entry("cube").status).toBe("passed");
    expect(JSON.stringify(requestsOf("cube", "tests")[1]!.body.messages)).toContain("the test file is broken");
  });

  it("refuses tests whose names could clash with other nodes' tests", () => {
    expect(entry("negate").status).toBe("passed");
    expect(JSON.stringify(requestsOf("negate", "tests")[1]!.body.messages)).toContain('must contain \\"negate\\"');
  });

  it("refuses tests that end the interpreter, and fails the node after 3 attempts, leaving nothing behind", () => {
    expect(entry("halve")).toMatchObject({
      status: "failed",
      failure_reason: expect.stringContaining("no usable failing tests after 3 attempts: the review refused the tests"),
    });
    expect(entry("halve").failure_reason).toContain("(process-exit)");
    expect(requestsOf("halve").map((r) => kindOf(r.body))).toEqual(["tests", "tests", "tests"]);
    expect(existsSync(join(out, "src/lab/halve.py"))).toBe(false);
    expect(existsSync(join(out, "tests/test_halve.py"))).toBe(false);
  });

  it("fails a node whose tests never fail against the stub, after 3 attempts", () => {
    expect(entry("vacuous")).toMatchObject({
      status: "failed",
      failure_reason: expect.stringContaining("no usable failing tests after 3 attempts"),
    });
    expect(requestsOf("vacuous", "tests")).toHaveLength(3);
  });

  it("feeds the failure brief back and passes after a fix", () => {
    expect(entry("inc")).toMatchObject({ status: "passed", retry_count: 1 });
    const brief = JSON.stringify(requestsOf("inc", "fix")[0]!.body.messages);
    expect(brief).toContain("test_inc_0");
    expect(brief).toContain("pytest output");
    expect(brief).toContain("<current_code>");
  });

  it("refuses an implementation that ends the interpreter, counting it as an attempt", () => {
    expect(entry("dec")).toMatchObject({ status: "passed", retry_count: 1 });
    expect(JSON.stringify(requestsOf("dec", "fix")[0]!.body.messages)).toContain("the review refused the code");
    expect(readFileSync(join(out, "src/lab/dec.py"), "utf8")).not.toContain("_exit");
  });

  it("refuses an implementation with more than the node's symbol and counts it as an attempt", () => {
    expect(entry("absval")).toMatchObject({ status: "passed", retry_count: 1 });
    expect(JSON.stringify(requestsOf("absval", "fix")[0]!.body.messages)).toContain("exactly one top-level def named absval");
    expect(readFileSync(join(out, "src/lab/absval.py"), "utf8")).not.toContain("helper");
  });

  it("repairs a reply that is not JSON by sending the parse error back", () => {
    expect(entry("sign").status).toBe("passed");
    const repair = requestsOf("sign", "implementation")[1]!.body.messages as { role: string; content: string }[];
    expect(repair.at(-2)).toEqual({ role: "assistant", content: "this is not JSON {" });
    expect(repair.at(-1)!.content).toContain("not valid JSON");
  });

  it("fails a hanging test at its time limit and lets a fix pass", () => {
    expect(entry("spin")).toMatchObject({ status: "passed", retry_count: 1 });
    expect(JSON.stringify(requestsOf("spin", "fix")[0]!.body.messages)).toContain("timed out");
  });

  it("stops after 8 failed fixes, diagnosed by five votes at its first failure and half-way, and restores every file it touched", () => {
    expect(entry("scale")).toMatchObject({
      status: "failed",
      retry_count: 8,
      failure_reason: expect.stringContaining("after 8 debug iterations"),
    });
    expect(requestsOf("scale", "fix")).toHaveLength(8);
    const votes = requestsOf("scale", "diagnosis");
    expect(votes).toHaveLength(10);
    expect(
      votes
        .slice(0, 5)
        .map((r) => r.body.temperature)
        .sort(),
    ).toEqual([0.3, 0.4, 0.5, 0.6, 0.7]);
    expect(entry("scale").diagnoses).toEqual([
      {
        iteration: 0,
        decision: "implementation_bug",
        votes: expect.arrayContaining([expect.objectContaining({ verdict: "implementation_bug" })]),
      },
      { iteration: 4, decision: "implementation_bug", votes: expect.any(Array) },
    ]);
    expect(entry("scale").diagnoses![1]!.votes).toHaveLength(5);
    // add_one shares the file and passed before; the file is exactly as add_one left it.
    const shared = readFileSync(join(out, "src/lab/shared.py"), "utf8");
    expect(shared).toBe("def add_one(x):\n    return x + 1\n");
    const tests = readFileSync(join(out, "tests/test_shared.py"), "utf8");
    expect(tests).toContain("def test_add_one");
    expect(tests).not.toContain("scale");
    expect(entry("scale").failure_context).toMatchObject({
      failingTests: [{ name: "test_scale" }],
      lastCode: expect.stringContaining("x * 18"),
    });
    expect(entry("scale").failure_context!.attempts.map((a) => a.label)).toEqual([
      "implementation",
      "diagnosis",
      "fix 1",
      "fix 2",
      "fix 3",
      "fix 4",
      "diagnosis",
      "fix 5",
      "fix 6",
      "fix 7",
      "fix 8",
    ]);
  });

  it("skips the dependents of a failed node", () => {
    expect(entry("uses_scale")).toMatchObject({ status: "skipped", blocked_by: ["scale"] });
    expect(requestsOf("uses_scale")).toEqual([]);
    expect(result.summary.counts).toMatchObject({ total: 15, passed: 11, failed: 3, skipped: 1 });
  });

  it("adds the import an edge implies when the code uses a dependency from another module", () => {
    expect(entry("uses_add")).toMatchObject({ status: "passed", retry_count: 0 });
    expect(readFileSync(join(out, "src/lab/uses_add.py"), "utf8")).toBe(
      "from lab.shared import add_one\n\n\ndef uses_add(x):\n    return add_one(x) * 2\n",
    );
  });

  it("repairs a missing standard-library import found in a NameError without spending an iteration", () => {
    expect(entry("root")).toMatchObject({ status: "passed", retry_count: 0 });
    expect(readFileSync(join(out, "src/lab/root.py"), "utf8")).toMatch(/^import math\n\n\ndef root/);
    expect(requestsOf("root", "fix")).toEqual([]);
  });

  it("keeps every prompt, reply and test result as artifacts per node and step", () => {
    const dir = join(out, ".rpg-forge", "runs", result.runId, "inc");
    const steps = readdirSync(dir);
    // The five votes are asked at once: each is kept, numbered in the order its reply came.
    expect(
      steps
        .slice(4, 9)
        .map((step) => step.replace(/^\d+-/, ""))
        .sort(),
    ).toEqual([1, 2, 3, 4, 5].map((n) => `diagnosis-${n}`));
    expect([...steps.slice(0, 4), ...steps.slice(9)]).toEqual([
      "01-tests-1",
      "02-red-gate-red",
      "03-implementation-1",
      "04-green-gate-failing",
      "10-localization-1",
      "11-fix-1",
      "12-green-gate-green",
      "13-test-strength",
    ]);
    // What the engine looked up for the fix (decision 0028): the node's dependencies and a search per failing test's message.
    const queries = JSON.parse(readFileSync(join(dir, "10-localization-1", "queries.json"), "utf8")) as { tool: string }[];
    expect(queries.map((q) => q.tool)).toEqual(["explore_dependencies", "search_rpg", "search_rpg"]);
    expect(readFileSync(join(dir, "12-green-gate-green", "inc.py"), "utf8")).toContain("return x + 1");
    expect(readFileSync(join(dir, "02-red-gate-red", "pytest-output.txt"), "utf8")).toContain("NotImplementedError");
    expect(JSON.parse(readFileSync(join(dir, "11-fix-1", "accepted.json"), "utf8"))).toMatchObject({ explanation: "was off by one" });
  });

  it("commits the report it is given, returns what the run's own report needs, and leaves a package whose own tests pass", async () => {
    const committed = readFileSync(join(out, "docs/generation_report.md"), "utf8");
    expect(committed).toContain("- **Nodes Failed**: 3 (20%)");
    expect(committed).toContain("### `scale`: `scale`");
    const { path, report } = await writeRunReport(out, { ...result, rpgPath: "rpg.json", model: "fake-model" });
    expect(path).toBe(join(out, ".rpg-forge/runs", result.runId, "generation_report.md"));
    expect(readFileSync(path, "utf8")).toBe(report);
    expect(report).toContain("- **Nodes Failed**: 3 (20%)");
    expect(report).toContain("### `scale`: `scale`");
    expect(report).toContain(`- **Run**: ${result.runId}`);
    const suite = packageSuiteIn("python3", out);
    expect(suite.output).toMatch(/\b12 passed\b/);
    expect(suite.code).toBe(0);
  });
});
