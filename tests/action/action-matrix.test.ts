import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../helpers/github-stand-in.js";
import { EXAMPLE, TOKEN, checkout, git, payload, remoteRefs, seedRemote } from "./fixtures.js";
import { runAction, type ActionRun } from "./run-action.js";

/**
 * Matrix mode as the workflow template runs it: a plan job, one job per subgraph of
 * each wave (each on a fresh checkout, after the earlier waves pushed), and a report
 * job. Every job is the bundled Action in its own process.
 */
let root: string;
let remote: string;
let standIn: GitHubStandIn;
let plan: ActionRun;
let waves: string[][];
const jobs: Record<string, ActionRun> = {};
let report: ActionRun;
let issue: number;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "rpg-forge-matrix-"));
  remote = seedRemote(root);
  standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit" });
  issue = standIn.addIssue({ title: "Generate statkit", labels: ["generate"] });
  const env = { GITHUB_REPOSITORY: "octo/statkit", GITHUB_API_URL: standIn.url };
  const event = { name: "workflow_dispatch", payload: payload("workflow_dispatch") };
  const inputs = {
    "rpg-path": "rpg.json",
    "github-token": TOKEN,
    replay: join(EXAMPLE, "cassette.jsonl"),
    issue: String(issue),
    concurrency: "2",
  };
  let n = 0;
  const job = (mode: string, extra: Record<string, string> = {}) =>
    runAction({
      workspace: checkout(root, remote, `job-${++n}`),
      runnerDir: join(root, `runner-${n}`),
      inputs: { ...inputs, mode, ...extra },
      event,
      env,
    });
  plan = await job("plan");
  waves = JSON.parse(plan.outputs.waves!) as string[][];
  for (const wave of waves) {
    for (const subgraph of wave) jobs[subgraph] = await job("generate", { subgraphs: subgraph });
  }
  report = await job("report");
}, 300_000);

afterAll(async () => {
  await standIn?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("matrix mode: a job per subgraph, wave by wave, then the report", () => {
  it("generates each subgraph in its own job, on the branches of the subgraphs it needs", () => {
    expect(waves).toEqual([["validation"], ["stats"], ["report"]]);
    for (const [subgraph, run] of Object.entries(jobs)) {
      expect({ subgraph, code: run.code, errors: run.stdout.split("\n").filter((l) => l.startsWith("::error")) }).toEqual({
        subgraph,
        code: 0,
        errors: [],
      });
    }
    // Each job generated its own subgraph's nodes only.
    expect(jobs.validation!.stdout).toMatch(/Starting run .*: 3 of 14 nodes to generate/);
    expect(jobs.stats!.stdout).toMatch(/Resuming run .*: 7 of 14 nodes to generate/);
    expect(jobs.report!.stdout).toMatch(/Resuming run .*: 4 of 14 nodes to generate/);
  });

  it("leaves each job's work on a work branch on the ones it needs; the report job stacks the PR branches", () => {
    const refs = remoteRefs(remote);
    expect(
      Object.keys(refs)
        .filter((r) => r.startsWith("refs/heads/"))
        .sort(),
    ).toEqual([
      "refs/heads/main",
      "refs/heads/rpg-forge/statkit",
      "refs/heads/rpg-work/statkit/report",
      "refs/heads/rpg-work/statkit/stats",
      "refs/heads/rpg-work/statkit/validation",
      "refs/heads/rpg/statkit/report",
      "refs/heads/rpg/statkit/stats",
      "refs/heads/rpg/statkit/validation",
    ]);
    expect(() => git(remote, "merge-base", "--is-ancestor", "rpg-work/statkit/validation", "rpg-work/statkit/stats")).not.toThrow();
    expect(() => git(remote, "merge-base", "--is-ancestor", "rpg-work/statkit/stats", "rpg-work/statkit/report")).not.toThrow();
    // The report job's stack: one commit per subgraph, each on the one before, the first on main.
    expect(git(remote, "rev-parse", "rpg/statkit/validation^")).toBe(git(remote, "rev-parse", "main"));
    expect(git(remote, "rev-parse", "rpg/statkit/stats^")).toBe(git(remote, "rev-parse", "rpg/statkit/validation"));
    expect(git(remote, "rev-parse", "rpg/statkit/report^")).toBe(git(remote, "rev-parse", "rpg/statkit/stats"));
    const files = git(remote, "ls-tree", "-r", "--name-only", "rpg/statkit/report").split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "src/statkit/validation.py",
        "src/statkit/stats/spread.py",
        "src/statkit/report/summary.py",
        "pyproject.toml",
      ]),
    );
    // report.format_number failed: its module, which holds no passed node, is not on the branch.
    expect(files).not.toContain("src/statkit/report/format.py");
    // The same package as one job makes: the stack's top holds every passed node's tests.
    expect(git(remote, "show", "rpg/statkit/report:docs/generation_report.md")).toContain("62 of 62 passing");
  });

  it("opens the PRs in the report job, stacked in merge order as in a single run", () => {
    expect(standIn.pulls.map((pr) => [pr.head.ref, pr.base.ref])).toEqual([
      ["rpg/statkit/validation", "main"],
      ["rpg/statkit/stats", "rpg/statkit/validation"],
      ["rpg/statkit/report", "rpg/statkit/stats"],
    ]);
    for (const wave of Object.values(jobs)) expect(JSON.parse(wave.outputs["pull-requests"]!)).toEqual({});
    expect(standIn.pulls[2]!.body).toContain(`#${standIn.pulls[1]!.number}`);
  });

  it("reports the whole run from the branches' checkpoints: outputs, the summary and one comment on the issue", () => {
    expect(report.code).toBe(0);
    expect(report.outputs).toMatchObject({ passed: "11", failed: "1", skipped: "2" });
    expect(Object.keys(JSON.parse(report.outputs["pull-requests"]!) as object).sort()).toEqual(["report", "stats", "validation"]);
    expect(report.summary).toContain("Code Generation Report");
    const onIssue = standIn.comments.filter((c) => c.issue_number === issue);
    expect(onIssue).toHaveLength(1);
    expect(onIssue[0]!.body).toContain("11 of 14 nodes pass");
    expect(standIn.violations).toEqual([]);
  });
});
