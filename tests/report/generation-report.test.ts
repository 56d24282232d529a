import { describe, expect, it } from "vitest";
import type { Checkpoint, CheckpointEntry } from "../../src/engine/checkpoint.js";
import { summarize } from "../../src/record/summary.js";
import { buildPlan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import {
  RUN_DETAILS_MARKER,
  RUN_DETAILS_NOTE,
  committedReport,
  renderGenerationReport,
  withoutRunDetails,
  type ReportInput,
} from "../../src/report/generation-report.js";
import { renderMermaid } from "../../src/report/mermaid.js";
import { HOSTILE, HOSTILE_TEXT, livePayloads } from "../helpers/live-markdown.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { expectBalanced } from "./markdown-structure.js";
import { checkpointEntry, checkpointOf } from "../helpers/checkpoint.js";

// Ids are any printable text; subgraph names are free text; reasons and warnings are the model's and pytest's words.
const failedId = `f ${HOSTILE.mention} ${HOSTILE.link}`;
const skippedId = `s ${HOSTILE.image} ${HOSTILE.comment}`;
const subgraphId = `core ${HOSTILE.tag}`;
const loaded = parseRpgText(
  text(
    rpgDoc(
      [
        leaf({ id: "ok", name: "ok", subgraph: subgraphId }),
        leaf({ id: failedId, name: "fails", subgraph: subgraphId }),
        leaf({ id: skippedId, name: "skipped", deps: [failedId], subgraph: subgraphId }),
      ],
      [],
      { subgraphs: [{ id: subgraphId, name: `Core ${HOSTILE_TEXT} \`x\`` }] },
    ),
  ),
  "rpg.json",
);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
const plan = buildPlan(loaded.value);

const entry = (status: CheckpointEntry["status"], extra: Partial<CheckpointEntry> = {}): CheckpointEntry =>
  checkpointEntry(status, { test_results: { passed: 1, failed: 0 }, retry_count: 2, subgraph_id: subgraphId, ...extra });
const checkpoint: Checkpoint = checkpointOf({
  ok: entry("passed"),
  [failedId]: entry("failed", { failure_reason: `I cannot do that. ${HOSTILE_TEXT}\n\n# Heading\n<details>` }),
  [skippedId]: entry("skipped", { blocked_by: [failedId] }),
});

function report(overrides: Partial<ReportInput> = {}): string {
  return renderGenerationReport({
    plan,
    checkpoint,
    summary: summarize(checkpoint),
    rpgPath: `rpg ${HOSTILE.mention}.json`,
    runId: "r",
    model: `model ${HOSTILE.link}`,
    generatedAt: new Date(0),
    elapsedMs: 1000,
    assembly: {
      warnings: [`left README.md alone: ${HOSTILE_TEXT}`],
      written: [],
      importCycles: [{ cycle: ["pkg.a", `pkg.${HOSTILE.tag}`, "pkg.a"], suggestion: `move it ${HOSTILE.link}` }],
      suite: { exitCode: 0, passed: 1, failed: 0, total: 1 },
      junitXml: undefined,
    },
    gitLog: ["abc1234 feat: complete ```", HOSTILE.tag, "```", HOSTILE.comment],
    ...overrides,
  });
}

// The statkit example's figures: the passed nodes hold 54 tests, all passing in the package's suite; the failed node's last attempt ran 4, 3 passing.
const counted: Checkpoint = {
  ...checkpoint,
  nodes: {
    ok: entry("passed", { test_results: { passed: 54, failed: 0 } }),
    [failedId]: entry("failed", { failure_reason: "1 of 4 tests failed", test_results: { passed: 3, failed: 1 } }),
    [skippedId]: entry("skipped", { blocked_by: [failedId], test_results: { passed: 0, failed: 0 } }),
  },
};
const suite = { exitCode: 0, passed: 54, failed: 0, total: 54 };
const section = (markdown: string, heading: string): string => markdown.split(`## ${heading}\n\n`)[1]!.split("\n\n")[0]!;

describe("docs/generation_report.md", () => {
  it("quotes ids, names, reasons, warnings and commit subjects inert", () => {
    const markdown = report();
    expect(livePayloads(markdown)).toEqual([]);
    expectBalanced(markdown);
  });

  it("still says what failed and why, quoted", () => {
    const markdown = report();
    expect(markdown).toContain("### `f @octocat [x](https://evil)`: `fails`");
    expect(markdown).toContain("- **Failure Reason**: I cannot do that. @\u200boctocat \\[x\\](https:\u200b//evil)");
    expect(markdown).toContain("- **Skipped Because of It**: `s ![i](https://evil/p.png) <!-- rpg-forge:marker -->`");
    expect(markdown).toContain("| `core <img src=x>` | 3 | 1 | 1 | 1 | 50% |");
  });

  it("shows each diagnosed node's votes, passed nodes too, quoted inert", () => {
    const votes = (reason: string) =>
      [0.3, 0.4, 0.5, 0.6, 0.7].map((temperature, i) => ({
        verdict: i < 4 ? ("implementation_bug" as const) : ("test_issue" as const),
        reason,
        temperature,
      }));
    const diagnosed: Checkpoint = {
      ...checkpoint,
      nodes: {
        ...checkpoint.nodes,
        ok: entry("passed", { diagnoses: [{ iteration: 0, decision: "implementation_bug", votes: votes(`sorted? ${HOSTILE_TEXT}`) }] }),
      },
    };
    const markdown = report({ checkpoint: diagnosed, summary: summarize(diagnosed) });
    expect(markdown).toContain(
      "## Diagnoses\n\nEach failing gate judged by the model's votes, a majority of which decides (decision 0020).\n\n### `ok`\n\n| After | Votes | Decision |",
    );
    expect(markdown).toContain("| implementation | implementation\\_bug 4, test\\_issue 1 | implementation bug: fix the code |");
    expect(markdown).toContain("- implementation, test_issue at 0.7: sorted? @\u200boctocat");
    expect(livePayloads(markdown)).toEqual([]);
    expectBalanced(markdown);
    expect(report()).not.toContain("## Diagnoses");
  });

  it("keeps backticks and markup in subgraph names out of the chart's labels", () => {
    const chart = renderMermaid(plan);
    expect(chart).not.toMatch(/`|<img|<!--/);
    expect(chart).toContain("#lt;img src=x#gt; #96;x#96;");
  });
});

describe("the report's test figures", () => {
  const full = report({
    checkpoint: counted,
    summary: summarize(counted),
    assembly: { warnings: [], written: [], importCycles: [], suite, junitXml: undefined },
  });

  it("states the package suite's figure once, and the failed nodes' tests apart with a label saying what they count", () => {
    expect(section(full, "Test Results").split("\n")).toEqual([
      "- **Package test suite**: 54 of 54 passing (`python3 -m pytest` on the assembled package, which holds the passed nodes' tests; test_results.xml)",
      "- **Failed nodes' tests**: 3 of 4 passing at each node's last attempt (not in the package)",
    ]);
    expect(section(full, "Repository Validation")).toContain("- ✅ package test suite: 54 of 54 passing (see Test Results)");
    // No sum over both, which no test run ever reported.
    expect(full).not.toMatch(/\b58\b|\b57\b/);
  });

  it("counts the passed nodes' own runs when the run ended before the package suite ran", () => {
    const interrupted = report({ checkpoint: counted, summary: summarize(counted), assembly: undefined });
    expect(section(interrupted, "Test Results")).toMatch(/^- \*\*Passed nodes' tests\*\*: 54 of 54 passing, each node's at its last run/);
  });
});

describe("the report's run details", () => {
  it("keeps run id, clock, timings and git history after the marker, and GitHub's copy leaves them out", () => {
    const markdown = report({
      runId: "20261123T133256Z-a75233d3",
      generatedAt: new Date(Date.UTC(2026, 10, 23, 13, 33, 13)),
      elapsedMs: 17_000,
    });
    const [before, after] = markdown.split(RUN_DETAILS_MARKER);
    expect(after).toContain("- **Run**: 20261123T133256Z-a75233d3");
    expect(after).toContain("- **Generated**: 2026-11-23 13:33:13 UTC");
    expect(after).toContain("- **Generation Time**: 17 s");
    expect(after).toContain("## Git History");
    expect(before).not.toMatch(/20261123|2026-11-23|Generation Time|Git History/);

    const onGitHub = withoutRunDetails(markdown);
    expect(onGitHub.startsWith(before!)).toBe(true);
    expect(onGitHub).not.toContain(RUN_DETAILS_MARKER);
    expect(onGitHub.endsWith(`${RUN_DETAILS_NOTE}\n`)).toBe(true);
    expect(withoutRunDetails(report({ runId: "other", generatedAt: new Date(1e12), elapsedMs: 99_000 }))).toBe(onGitHub);
    expectBalanced(onGitHub);
  });

  it("cannot be cut short by quoted text that spells the marker", () => {
    const forged = {
      ...counted,
      nodes: { ...counted.nodes, [failedId]: { ...counted.nodes[failedId]!, failure_reason: `x\n${RUN_DETAILS_MARKER}\n` } },
    };
    const markdown = report({ checkpoint: forged, summary: summarize(forged) });
    expect(markdown.split(`\n${RUN_DETAILS_MARKER}\n`)).toHaveLength(2);
    expect(withoutRunDetails(markdown)).toContain("## Repository Validation");
  });

  it("ends the git history on the head the run ended on: nothing is committed after the report", () => {
    const gitLog = [
      "a608ee9 feat: complete Reports (HEAD -> rpg-forge/statkit, tag: rpg/r/report)",
      "07a49ac feat: complete Input validation (tag: rpg/r/validation)",
    ];
    expect(section(report({ gitLog }), "Git History")).toBe(["```", ...gitLog, "```"].join("\n"));
  });

  it("commits a report without the run's details, the same for the same state whichever run made it", () => {
    const committed = committedReport({ plan, checkpoint, summary: summarize(checkpoint), rpgPath: "rpg.json", model: "m" });
    expect(committed).not.toMatch(/Generation Time|Git History|## Run\b/);
    expect(committed).toContain(RUN_DETAILS_NOTE);
    expect(committed).toBe(
      committedReport({ plan, checkpoint: structuredClone(checkpoint), summary: summarize(checkpoint), rpgPath: "rpg.json", model: "m" }),
    );
  });
});
