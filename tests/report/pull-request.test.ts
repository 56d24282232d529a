import { RUN_DETAILS_NOTE } from "../../src/report/generation-report.js";
import { describe, expect, it } from "vitest";
import type { Checkpoint, CheckpointEntry } from "../../src/engine/checkpoint.js";
import { buildPlan } from "../../src/plan/plan.js";
import { COMMENT_LIMIT } from "../../src/report/fit-limit.js";
import {
  renderFailedNodeComment,
  renderPassedAgainComment,
  renderPrBody,
  renderPrTitle,
  renderReportComment,
  type SubgraphPrInput,
} from "../../src/report/pull-request.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { expectBalanced, structure } from "./markdown-structure.js";

const loaded = parseRpgText(
  text(
    rpgDoc(
      [
        leaf({ id: "a", subgraph: "io", name: "read_csv", file: "src/pkg/io.py" }),
        leaf({ id: "b", subgraph: "core", name: "parse", deps: ["a"] }),
        leaf({ id: "c", subgraph: "core", name: "compute", deps: ["b"] }),
        leaf({ id: "d", subgraph: "core", name: "summarize", deps: ["c"] }),
        leaf({ id: "e", subgraph: "cli", name: "main", deps: ["d"], file: "src/pkg/cli.py" }),
      ],
      [],
      {
        subgraphs: [
          { id: "io", name: "Input/Output" },
          { id: "core", name: "Core logic", description: "Parses and computes." },
          { id: "cli", name: "Command line" },
        ],
      },
    ),
  ),
  "rpg.json",
);
if (!loaded.ok) throw new Error("the test RPG does not validate");
const plan = buildPlan(loaded.value);

const entry = (subgraph: string, fields: Partial<CheckpointEntry>): CheckpointEntry => ({
  status: "passed",
  timestamp: "2024-01-01T00:00:00Z",
  test_results: { passed: 0, failed: 0 },
  retry_count: 0,
  attempts: [],
  subgraph_id: subgraph,
  node_type: "leaf",
  ...fields,
});

function checkpointWith(context: CheckpointEntry["failure_context"]): Checkpoint {
  return {
    version: 1,
    run_id: "run-7",
    rpg_sha256: "",
    created_at: "2024-01-01T00:00:00Z",
    updated_at: "2024-01-01T00:00:00Z",
    nodes: {
      a: entry("io", { test_results: { passed: 2, failed: 0 }, tokens: { prompt: 400, completion: 100, total: 500 }, duration_ms: 800 }),
      b: entry("core", {
        test_results: { passed: 3, failed: 0 },
        tokens: { prompt: 1000, completion: 200, total: 1200 },
        duration_ms: 1500,
      }),
      c: entry("core", {
        status: "failed",
        retry_count: 3,
        test_results: { passed: 1, failed: 2 },
        failure_reason: "iterations-exhausted: 2 of 3 tests failed",
        tokens: { prompt: 3000, completion: 1000, total: 4000 },
        duration_ms: 65_000,
        ...(context ? { failure_context: context } : {}),
      }),
      d: entry("core", { status: "skipped", blocked_by: ["c"], failure_reason: "skipped: depends on failed node c" }),
      e: entry("cli", { status: "skipped", blocked_by: ["c"], failure_reason: "skipped: depends on failed node c" }),
    },
  };
}

const context = {
  failingTests: [
    { name: "tests/test_core.py::test_compute", message: "AssertionError: assert 2 == 3\n```\n</details>\n<b>bold?</b>" },
    { name: "tests/test_core.py::test_compute_empty", message: "ValueError: empty" },
  ],
  output: "collected 3 items\n```\n</details>\n<b>bold?</b>\nE   AssertionError: assert 2 == 3",
  lastCode: 'def compute(x):\n    """\n```\n</details>\n"""\n    return x\n',
  attempts: [
    { label: "diagnosis", tried: "2 of 3 votes: the test is right; add @property <details>", outcome: "fix the code" },
    { label: "localization", tried: "searched compute, parse", outcome: "edited compute" },
  ],
};

const input = (overrides: Partial<SubgraphPrInput> = {}): SubgraphPrInput => ({
  plan,
  checkpoint: checkpointWith(context),
  subgraphId: "core",
  rpgPath: "specs/rpg.json",
  dependencyPrs: [{ subgraphId: "io", number: 12, url: "https://github.com/o/r/pull/12" }],
  baseBranch: "main",
  ...overrides,
});

describe("renderPrTitle", () => {
  it("names the subgraph and counts its passing nodes", () => {
    expect(renderPrTitle(input())).toBe("rpg-forge: Core logic (1/3 nodes pass)");
  });
});

describe("renderPrBody", () => {
  const body = renderPrBody(input());

  it("has a row per node in plan order, with status, iterations and test results", () => {
    const rows = body.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows).toEqual([
      "| `b` | `parse` | `src/pkg/core.py` | ✅ passed | 0 | 3 passed, 0 failed |",
      "| `c` | `compute` | `src/pkg/core.py` | ❌ failed | 3 | 1 passed, 2 failed |",
      "| `d` | `summarize` | `src/pkg/core.py` | ⏭️ skipped | – | – |",
    ]);
  });

  it("says what the subgraph is and where it comes from", () => {
    expect(body).toMatch(/^## Core logic\n/);
    expect(body).toContain("Subgraph `core` of the Repository Planning Graph `specs/rpg.json`: 3 nodes in 1 file, 1 of 3 passing");
    expect(body).toContain("> Parses and computes.");
    expect(body).toContain("RPG `specs/rpg.json` · base `main`");
  });

  it("links the pull requests of the subgraphs it depends on, and names those without one", () => {
    expect(body).toContain("**Depends on**\n\n- #12: Input/Output (`io`)");
    const cli = renderPrBody(input({ subgraphId: "cli", dependencyPrs: [] }));
    expect(cli).toContain("- no pull request: Core logic (`core`)");
    expect(renderPrBody(input({ subgraphId: "io", dependencyPrs: [] }))).not.toContain("Depends on");
  });

  it("says when it is stacked on an upstream subgraph's branch, and not otherwise", () => {
    expect(body).not.toContain("Stacked");
    const stacked = renderPrBody(input({ baseBranch: "rpg/pkg/io" }));
    expect(stacked).toContain("**Stacked:** this pull request targets `rpg/pkg/io`");
    expect(stacked).toContain("shows only this subgraph's changes");
  });

  it("draws only this subgraph's nodes, coloured by status", () => {
    const chart = /```mermaid\n([\s\S]*?)\n```/.exec(body)?.[1] ?? "";
    expect(chart).toMatch(/^flowchart TD/);
    expect(chart).toContain('subgraph s0["Core logic"]');
    expect(chart).not.toContain("read_csv");
    expect(chart).toContain("n0 --> n1");
    expect(chart).toContain("class n0 passed");
    expect(chart).toContain("class n1 failed");
    expect(chart).toContain("class n2 skipped");
  });

  it("links back to the issue that asked for the run, and to none without one", () => {
    expect(renderPrBody(input({ issue: 15 }))).toContain("\n\nRequested in #15.\n\n");
    expect(body).not.toContain("Requested in");
  });

  it("quotes paths whose backticks would end a code span", () => {
    expect(renderPrBody(input({ rpgPath: "specs/`odd`.json" }))).toContain("RPG ``specs/`odd`.json`` · base `main`");
  });

  it("keeps a pipe in a node id from splitting its table row", () => {
    const piped = parseRpgText(text(rpgDoc([leaf({ id: "a|b", name: "f" })])), "rpg.json");
    if (!piped.ok) throw new Error("the test RPG does not validate");
    const only = buildPlan(piped.value);
    const checkpoint = { ...checkpointWith(undefined), nodes: { "a|b": entry("core", {}) } };
    const rows = renderPrBody(input({ plan: only, checkpoint, dependencyPrs: [] })).split("\n");
    expect(rows).toContain("| `a\\|b` | `f` | `src/pkg/core.py` | ✅ passed | 0 | 0 passed, 0 failed |");
  });

  it("renders the same text for the same input", () => {
    expect(renderPrBody(input())).toBe(body);
  });
});

describe("renderReportComment", () => {
  const report = renderReportComment({ ...input(), model: "gpt-4o" });

  it("shows the coverage of each node's code by its own tests, and says once why a figure is missing", () => {
    expect(report).not.toContain("#### Coverage");
    const measured = checkpointWith(context);
    measured.nodes["b"]!.coverage = { lines: { covered: 6, total: 8 }, branches: { covered: 1, total: 2 } };
    measured.nodes["c"]!.coverage_note = "coverage.py is not installed for /opt/py/bin/python3 @octocat";
    const shown = renderReportComment({ ...input({ checkpoint: measured }), model: "gpt-4o" });
    expect(shown).toContain("#### Coverage of each node's code by its own tests\n\n| Node | Lines | Branches |");
    expect(shown).toContain("| `b` | 6 of 8 (75%) | 1 of 2 (50%) |");
    expect(shown).toContain("_No coverage figure for `c`: coverage.py is not installed for /opt/py/bin/python3 @\u200boctocat_");
  });

  it("flags a node whose tests kill none of its mutants, and only then", () => {
    expect(report).not.toContain("Tests that catch no mutant");
    const measured = checkpointWith(context);
    measured.nodes["b"]!.test_strength = {
      mutants: 2,
      killed: 0,
      survivors: [
        { kind: "comparison-flipped", description: "line 3: `<` became `>=` @octocat" },
        { kind: "constant-returned", description: "line 2: the body of `compute` became `return None`" },
      ],
    };
    measured.nodes["a"]!.test_strength = { mutants: 3, killed: 3, survivors: [] };
    const flagged = renderReportComment({ ...input({ checkpoint: measured }), model: "gpt-4o" });
    expect(flagged).toContain("#### ⚠️ Tests that catch no mutant");
    expect(flagged).toContain("- `b` (`");
    expect(flagged).toContain(
      "its tests still pass with each of 2 mutants of its code (line 3: \\`&lt;\\` became \\`&gt;=\\` @\u200boctocat;",
    );
    expect(flagged).not.toContain("- `a` (");
    expect(flagged).toContain("**Test strength**: the nodes' tests killed 0 of 2 mechanical mutants of their code (0%; decision 0022).");
    expect(report).not.toContain("**Test strength**");
  });

  it("counts this subgraph and the whole run, with pass rates over the generated nodes", () => {
    expect(report).toContain("| Subgraph `core` | 3 | 1 | 1 | 1 | 50% |");
    expect(report).toContain("| Whole run | 5 | 2 | 1 | 2 | 67% |");
  });

  it("shows each node's result, with the model", () => {
    expect(report).toContain("| `b` | `parse` | ✅ passed | 0 | 3 passed, 0 failed |");
    expect(report).toContain("| `c` | `compute` | ❌ failed | 3 | 1 passed, 2 failed |");
    expect(report).toContain("| `d` | `summarize` | ⏭️ skipped | – | – |");
    expect(report).toContain("Model `gpt-4o` · RPG `specs/rpg.json`");
  });

  it("leaves out what changes on every run (run id, durations, tokens), and says where to find it", () => {
    // Node c took 65 s and 4,000 tokens in this checkpoint: neither may show.
    expect(report).not.toMatch(/\b\d+ s\b|\bmin\b|elapsed|4,000|[Tt]okens \(|\| Tokens/);
    expect(report).toContain(RUN_DETAILS_NOTE);
    const retried = checkpointWith(context);
    for (const entry of Object.values(retried.nodes)) {
      if (entry.duration_ms !== undefined) entry.duration_ms *= 3;
      if (entry.tokens) entry.tokens = { ...entry.tokens, total: entry.tokens.total * 2 };
    }
    expect(renderReportComment({ ...input({ checkpoint: retried }), model: "gpt-4o" })).toBe(report);
  });

  it("lists what blocked each skipped node", () => {
    expect(report).toContain("#### Skipped nodes\n\n- `d` (`summarize`): blocked by `c`");
  });
});

const split = (verdict: "implementation_bug" | "test_issue", n: number) =>
  Array.from({ length: n }, () => ({ verdict, reason: `${verdict} it is` }));

describe("renderFailedNodeComment", () => {
  const retry = "npx rpg-forge run --resume --retry-node c";
  const comment = renderFailedNodeComment(input(), "c", retry);

  it("names the node and why it failed, and gives the command to retry it", () => {
    expect(comment).toMatch(/^### ❌ Node `c` failed: `compute`\n/);
    expect(comment).toContain("- **File**: `src/pkg/core.py`");
    expect(comment).toContain("- **Reason**: iterations-exhausted: 2 of 3 tests failed");
    expect(comment).toContain("- **Skipped because of it**: `d`, `e`");
    expect(comment).toContain(`\`\`\`sh\n${retry}\n\`\`\``);
    expect(comment.indexOf(retry)).toBeGreaterThan(comment.lastIndexOf("</details>"));
  });

  it("puts the failing tests, pytest's output, the attempts and the last code in collapsed sections", () => {
    const summaries = [...comment.matchAll(/<details><summary>(.*)<\/summary>/g)].map((m) => m[1]);
    expect(summaries).toEqual(["Failing tests (2)", "pytest output (end)", "Attempts (2)", "Last attempted code"]);
    expect(comment).toContain("tests/test_core.py::test_compute\n    AssertionError: assert 2 == 3");
    expect(comment).toContain("````text\ncollected 3 items");
    expect(comment).toContain("````python\ndef compute(x):");
    expect(comment).toContain("- **localization**: searched compute, parse → edited compute");
  });

  it("shows every diagnosis vote with its reason, and the decision of each diagnosis", () => {
    const diagnosed = checkpointWith(context);
    diagnosed.nodes["c"]!.diagnoses = [
      {
        iteration: 0,
        decision: "implementation_bug",
        votes: [0.3, 0.4, 0.5, 0.6, 0.7].map((temperature, i) => ({
          verdict: i === 4 ? "test_issue" : "implementation_bug",
          reason: i === 4 ? "the test wants `3` | </details> @octocat" : "compute returns its input",
          temperature,
        })),
      },
      {
        iteration: 2,
        decision: "needs_human_review",
        votes: [
          ...split("implementation_bug", 2),
          ...split("test_issue", 2),
          { verdict: "environment_issue", reason: "the sandbox is slow" },
        ],
      },
    ];
    const shown = renderFailedNodeComment(input({ checkpoint: diagnosed }), "c", retry);
    const summaries = [...shown.matchAll(/<details><summary>(.*)<\/summary>/g)].map((m) => m[1]);
    expect(summaries).toContain("Diagnosis votes (2)");
    expect(shown).toContain("| implementation | implementation\\_bug 4, test\\_issue 1 | implementation bug: fix the code |");
    expect(shown).toContain("| fix 2 | implementation\\_bug 2, test\\_issue 2, environment\\_issue 1 | no majority: needs human review |");
    expect(shown).toContain("- implementation, test_issue at 0.7: the test wants \\`3\\` \\| &lt;/details&gt; @\u200boctocat");
    expect(shown.split("\n").filter((line) => line.startsWith("- fix 2,"))).toHaveLength(5);
    expectBalanced(shown);
  });

  it("keeps quoted fences and </details> from closing its own", () => {
    expectBalanced(comment);
    const { outside } = structure(comment);
    expect(outside.match(/<details>/g)).toHaveLength(4);
    expect(outside.match(/<\/details>/g)).toHaveLength(4);
    expect(outside).not.toContain("<b>");
  });

  it("leaves out pytest's timing, so the same failure renders the same comment on a rerun", () => {
    const tally = (line: string) =>
      renderFailedNodeComment(input({ checkpoint: checkpointWith({ ...context, output: `..F.\n${line}` }) }), "c", retry);
    expect(tally("1 failed, 3 passed in 0.02s")).toContain("..F.\n1 failed, 3 passed\n");
    expect(tally("1 failed, 3 passed in 0.31s")).toBe(tally("1 failed, 3 passed in 0.02s"));
    expect(tally("==== 2 failed, 1 warning in 65.20s (0:01:05) ====")).toContain("\n==== 2 failed, 1 warning ====\n");
    expect(tally("no tests ran in 0.01s")).toContain("\nno tests ran\n");
    // Only pytest's tally: a test's own words about time stay.
    expect(tally("E   assert 'done in 0.5s' == 'x'")).toContain("E   assert 'done in 0.5s' == 'x'");
  });

  it("shows HTML from the model as text and does not mention users", () => {
    expect(comment).toContain("add @\u200bproperty &lt;details&gt;");
    expect(comment).not.toContain("@property");
  });

  it("says so when no failure context was recorded, and still shows the reason and the retry command", () => {
    const bare = renderFailedNodeComment(input({ checkpoint: checkpointWith(undefined) }), "c", retry);
    expect(bare).toContain("No failure context was recorded");
    expect(bare).toContain("- **Reason**: iterations-exhausted: 2 of 3 tests failed");
    expect(bare).toContain(retry);
    expect(bare).not.toContain("<details>");
  });
});

describe("renderPassedAgainComment", () => {
  it("says the node passes now", () => {
    const passed = checkpointWith(undefined);
    passed.nodes.c = entry("core", { retry_count: 2, test_results: { passed: 3, failed: 0 } });
    const text = renderPassedAgainComment(input({ checkpoint: passed }), "c");
    expect(text).toMatch(/^### ✅ Node `c` passes now: `compute`\n/);
    expect(text).toContain("passed after 2 debug iterations, 3 tests passing.");
  });
});

describe("renderFailedNodeComment at the comment limit", () => {
  const retry = "npx rpg-forge run --resume --retry-node c";
  const huge = (fields: Partial<typeof context>) =>
    renderFailedNodeComment(input({ checkpoint: checkpointWith({ ...context, ...fields }) }), "c", retry);

  it("keeps the end of a 200,000-character pytest output, where the error is", () => {
    const output = `${Array.from({ length: 4000 }, (_, i) => `line ${i} of setup noise ${"x".repeat(40)}`).join("\n")}\nE   AssertionError: the real error`;
    expect(output.length).toBeGreaterThan(200_000);
    const comment = huge({ output });
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(comment).toContain("E   AssertionError: the real error");
    expect(comment).not.toContain("line 0 of setup");
    expect(comment).toContain(retry);
    expect(comment).toContain("def compute(x):"); // the short sections are untouched
    expect(comment).toMatch(/_\(truncated: [\d,]+ characters of output not shown; see docs\/generation_report\.md on the branch\)_\n$/);
    expectBalanced(comment);
  });

  it("fits thousands of failing tests, a huge last code and a long attempts trail", () => {
    const comment = huge({
      failingTests: Array.from({ length: 5000 }, (_, i) => ({ name: `tests/test_core.py::test_${i}`, message: `assert ${i} == ${i + 1}` })),
      lastCode: "x = 1\n".repeat(30_000),
      attempts: Array.from({ length: 3000 }, (_, i) => ({ label: `fix ${i}`, tried: "changed the loop", outcome: "1 of 3 tests failed" })),
    });
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(comment).toContain("tests/test_core.py::test_0\n");
    expect(comment).toContain("- **fix 0**: changed the loop");
    expect(comment).toMatch(/_\([\d,]+ characters cut\)_/);
    expect(comment).toContain(retry);
    expectBalanced(comment);
  });
});
