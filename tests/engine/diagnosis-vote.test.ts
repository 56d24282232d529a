import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckpointEntry } from "../../src/engine/checkpoint.js";
import { majorityOf, tallyVotes, voteTemperatures } from "../../src/engine/diagnosis-vote.js";
import { describeSplit, type Vote } from "../../src/record/diagnosis.js";
import type { GenerateResult } from "../../src/engine/generate.js";
import { generateWith, labLeaf, oneTest, startScriptedModel, type ScriptedModel, type Scripts } from "../helpers/scripted-model.js";
import { split, unanimous } from "../helpers/votes.js";

const votes = (...verdicts: Vote["verdict"][]): Vote[] => verdicts.map((verdict) => ({ verdict, reason: verdict }));

describe("tallying diagnosis votes (PRD epic 4.5)", () => {
  it("decides by a majority of the votes asked", () => {
    expect(majorityOf(5)).toBe(3);
    const bug = "implementation_bug";
    expect(tallyVotes(votes(bug, bug, bug, bug, bug), 5)).toEqual({ decision: bug, count: 5 });
    expect(tallyVotes(votes("test_issue", "test_issue", bug, "test_issue", "test_issue"), 5)).toEqual({ decision: "test_issue", count: 4 });
    expect(tallyVotes(votes("environment_issue", bug, "environment_issue", "test_issue", "environment_issue"), 5).decision).toBe(
      "environment_issue",
    );
  });

  it("sends a 2-2-1 split to a person, and never lets silence decide", () => {
    expect(tallyVotes(votes("implementation_bug", "implementation_bug", "test_issue", "test_issue", "environment_issue"), 5)).toEqual({
      decision: "needs_human_review",
      count: 2,
    });
    // Two answers of five agree: a majority of those cast, not of those asked.
    expect(tallyVotes(votes("test_issue", "test_issue", "none", "none", "none"), 5).decision).toBe("needs_human_review");
    expect(tallyVotes(votes("none", "none", "none", "none", "none"), 5)).toEqual({ decision: "no_votes", count: 0 });
    expect(describeSplit(votes("test_issue", "implementation_bug", "test_issue", "none"))).toBe(
      "implementation_bug 1, test_issue 2, no answer 1",
    );
  });

  it("spreads the temperatures from 0.3 to 0.7", () => {
    expect(voteTemperatures(5)).toEqual([0.3, 0.4, 0.5, 0.6, 0.7]);
    expect(voteTemperatures(3)).toEqual([0.3, 0.5, 0.7]);
    expect(voteTemperatures(1)).toEqual([0.5]);
  });
});

const impl = (name: string, body: string) => ({ imports: [], code: `def ${name}(x):\n    return ${body}\n`, notes: "" });
const fix = (name: string, body: string) => ({ imports: [], code: `def ${name}(x):\n    return ${body}\n`, explanation: "" });
const tests = (name: string, expected: number) => oneTest(name, `assert ${name}(2) == ${expected}`);

/** Each node's docstring says "Double x."; what differs is where the failure lies and what the votes say. */
const SCRIPTS: Scripts = {
  // 5 of 5: the implementation is wrong; the fix step follows.
  unanimous: {
    tests: [tests("unanimous", 4)],
    implementation: [impl("unanimous", "x + 2 + 1")],
    diagnosis: unanimous("implementation_bug", "2 * 2 is 4, the code gives 5"),
    fix: [fix("unanimous", "2 * x")],
  },
  // 4 of 5: the tests expect something the docstring does not say; new tests, then a fresh implementation.
  bad_tests: {
    tests: [tests("bad_tests", 5), tests("bad_tests", 4)],
    implementation: [impl("bad_tests", "2 * x"), impl("bad_tests", "2 * x")],
    diagnosis: [...unanimous("test_issue", "doubling 2 gives 4; the test wants 5", 4), { verdict: "implementation_bug", reason: "maybe" }],
  },
  // 2-2-1: no majority; a person decides.
  torn: {
    tests: [tests("torn", 4)],
    implementation: [impl("torn", "x")],
    diagnosis: split({ implementation_bug: 2, test_issue: 2, environment_issue: 1 }),
  },
  // 3 of 5 say the sandbox is at fault: the node fails with that reason.
  sandboxed: {
    tests: [tests("sandboxed", 4)],
    implementation: [impl("sandboxed", "x")],
    diagnosis: [...unanimous("environment_issue", "the module could not be found in the sandbox", 3), ...split({ implementation_bug: 2 })],
  },
  // The votes keep finding the tests at fault: after two rewrites, a person decides.
  stubborn: {
    tests: [tests("stubborn", 5), tests("stubborn", 5), tests("stubborn", 5)],
    implementation: [impl("stubborn", "2 * x"), impl("stubborn", "2 * x"), impl("stubborn", "2 * x")],
    diagnosis: unanimous("test_issue", "the test wants 5", 15),
  },
};

let model: ScriptedModel;
let out: string;
let result: GenerateResult;
const entry = (id: string): CheckpointEntry => result.checkpoint.nodes[id]!;
const kinds = (id: string): string[] =>
  model.requestsOf(id).map((r) => (r.body.response_format as { json_schema: { name: string } }).json_schema.name.replace("rpg_forge_", ""));

beforeAll(async () => {
  model = await startScriptedModel(SCRIPTS);
  out = mkdtempSync(join(tmpdir(), "rpg-forge-votes-"));
  const nodes = Object.keys(SCRIPTS).map((name) => labLeaf(name, name, [], "Double x."));
  result = await generateWith(model, nodes, out);
}, 240_000);

afterAll(async () => {
  await model?.close();
  rmSync(out, { recursive: true, force: true });
});

describe("a failing gate diagnosed by five votes", () => {
  it("5 of 5 say implementation bug: the fix step, and the votes in the checkpoint", () => {
    expect(entry("unanimous")).toMatchObject({ status: "passed", retry_count: 1 });
    expect(kinds("unanimous")).toEqual(["tests", "implementation", ...Array(5).fill("diagnosis"), "fix"]);
    const temperatures = model.requestsOf("unanimous", "diagnosis").map((r) => r.body.temperature);
    expect(temperatures.sort()).toEqual([0.3, 0.4, 0.5, 0.6, 0.7]);
    expect(entry("unanimous").diagnoses).toEqual([
      {
        iteration: 0,
        decision: "implementation_bug",
        votes: [0.3, 0.4, 0.5, 0.6, 0.7].map((temperature) => ({
          verdict: "implementation_bug",
          reason: "2 * 2 is 4, the code gives 5",
          temperature,
        })),
      },
    ]);
  });

  it("4 of 5 say test issue: new tests, which must fail again, and no fix", () => {
    expect(entry("bad_tests")).toMatchObject({ status: "passed", retry_count: 1 });
    expect(kinds("bad_tests")).toEqual(["tests", "implementation", ...Array(5).fill("diagnosis"), "tests", "implementation"]);
    const second = JSON.stringify(model.requestsOf("bad_tests", "tests")[1]!.body.messages);
    expect(second).toContain("a diagnosis found the previous tests at fault (4 of 5 votes): doubling 2 gives 4; the test wants 5");
    expect(entry("bad_tests").diagnoses!.map((d) => d.decision)).toEqual(["test_issue"]);
  });

  it("a 2-2-1 split fails the node as needing human review, with every vote in its context", () => {
    expect(entry("torn")).toMatchObject({
      status: "failed",
      retry_count: 0,
      failure_reason: "needs human review: the diagnosis votes split (implementation_bug 2, test_issue 2, environment_issue 1)",
    });
    expect(model.requestsOf("torn", "fix")).toEqual([]);
    expect(
      entry("torn")
        .diagnoses![0]!.votes.map((v) => v.verdict)
        .sort(),
    ).toEqual(["environment_issue", "implementation_bug", "implementation_bug", "test_issue", "test_issue"]);
    expect(entry("torn").failure_context!.attempts.at(-1)).toEqual({
      label: "diagnosis",
      tried: "implementation_bug 2, test_issue 2, environment_issue 1",
      outcome: "needs_human_review",
    });
  });

  it("3 of 5 say environment: the node fails with that reason", () => {
    expect(entry("sandboxed")).toMatchObject({
      status: "failed",
      failure_reason: "the diagnosis found an environment issue (3 of 5 votes): the module could not be found in the sandbox",
    });
    expect(model.requestsOf("sandboxed", "fix")).toEqual([]);
  });

  it("rewrites the tests at most twice, then asks for a person", () => {
    expect(entry("stubborn")).toMatchObject({
      status: "failed",
      failure_reason: expect.stringMatching(/^needs human review: the tests were rewritten 2 times/),
    });
    expect(model.requestsOf("stubborn", "tests")).toHaveLength(3);
    expect(entry("stubborn").diagnoses!.map((d) => d.decision)).toEqual(["test_issue", "test_issue", "test_issue"]);
  });
});

describe("a test that fails and then passes unchanged", () => {
  let flakyModel: ScriptedModel;
  let flakyOut: string;
  let flaky: GenerateResult;
  beforeAll(async () => {
    // The tests count their runs in a file outside the package (the process sandbox lets them): they fail against the
    // stub (run 1) and against the implementation (run 2), and pass when run again unchanged (run 3).
    flakyOut = mkdtempSync(join(tmpdir(), "rpg-forge-flaky-"));
    const counter = join(flakyOut, "runs.txt");
    const code = [
      "import pathlib",
      "",
      "from lab.wobbly import wobbly",
      "",
      "",
      "def test_wobbly():",
      `    counter = pathlib.Path(${JSON.stringify(counter)})`,
      "    runs = int(counter.read_text()) + 1 if counter.exists() else 1",
      "    counter.write_text(str(runs))",
      "    assert wobbly(2) == 4 and runs != 2",
      "",
    ].join("\n");
    flakyModel = await startScriptedModel({
      wobbly: {
        tests: [{ test_code: code, notes: "" }, tests("wobbly", 4)],
        implementation: [impl("wobbly", "2 * x"), impl("wobbly", "2 * x")],
      },
    });
    flaky = await generateWith(flakyModel, [labLeaf("wobbly", "wobbly", [], "Double x.")], join(flakyOut, "package"), {
      sandbox: "process",
    });
  }, 120_000);
  afterAll(async () => {
    await flakyModel?.close();
    rmSync(flakyOut, { recursive: true, force: true });
  });

  it("is recorded as flaky and its tests are written again, without asking for votes", () => {
    const node = flaky.checkpoint.nodes["wobbly"]!;
    expect(node).toMatchObject({ status: "passed" });
    expect(node.diagnoses).toEqual([{ iteration: 0, votes: [], decision: "flaky", flaky_tests: ["test_wobbly"] }]);
    expect(flakyModel.requestsOf("wobbly", "diagnosis")).toEqual([]);
    expect(JSON.stringify(flakyModel.requestsOf("wobbly", "tests")[1]!.body.messages)).toContain(
      "test_wobbly failed and then passed unchanged: the tests are flaky",
    );
  });
});
