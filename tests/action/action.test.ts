import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn, type StandInRequest, type StoredPull } from "../helpers/github-stand-in.js";
import { EXAMPLE_STATS_PYTHON_FILES } from "../helpers/example-files.js";
import { EXAMPLE, TOKEN, checkout, git, payload, remoteRefs, seedRemote } from "./fixtures.js";
import { runAction, type ActionRun } from "./run-action.js";
import { inMergeOrder, installAndTest, mergeGenerated, type MergedGraph } from "./stack-merging.js";

let root: string;
let remote: string;
let standIn: GitHubStandIn;
let first: ActionRun;
let second: ActionRun;
let retry: ActionRun;
let firstHeads: Record<string, string>;
let secondHeads: Record<string, string>;
let issue: number;
/** The remote as the first run left it, and the PRs it opened: what a person merges (the last describe). */
let generated: string;
let opened: StoredPull[];
/** The requests each run made, in order. */
const requestsOf = new Map<ActionRun, StandInRequest[]>();

const checkoutAs = (name: string): string => checkout(root, remote, name);
const remoteHeads = (): Record<string, string> => remoteRefs(remote);
const inputs: Record<string, string> = {
  "rpg-path": "rpg.json",
  mode: "generate",
  "github-token": TOKEN,
  replay: join(EXAMPLE, "cassette.jsonl"),
  // Three nodes at once: the replies are keyed by node, so the result is the same as one at a time.
  concurrency: "3",
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "rpg-forge-action-"));
  remote = seedRemote(root);
  standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit" });
  const env = { GITHUB_REPOSITORY: "octo/statkit", GITHUB_API_URL: standIn.url, GITHUB_SERVER_URL: "https://github.com" };
  const event = { name: "push", payload: payload("push") };
  // The run report goes on an issue too, so that its comment is held to the same rule as the PRs'.
  issue = standIn.addIssue({ title: "Generate statkit" });
  inputs.issue = String(issue);
  const runRecorded = async (options: Parameters<typeof runAction>[0]): Promise<ActionRun> => {
    const from = standIn.requests.length;
    const run = await runAction(options);
    requestsOf.set(run, standIn.requests.slice(from));
    return run;
  };
  first = await runRecorded({ workspace: checkoutAs("run-1"), runnerDir: join(root, "runner-1"), inputs, event, env });
  firstHeads = remoteHeads();
  generated = join(root, "generated.git");
  cpSync(remote, generated, { recursive: true });
  opened = structuredClone(inMergeOrder(standIn.pulls));
  // The same input and, from the cassette, the same model replies: the same result.
  second = await runRecorded({ workspace: checkoutAs("run-2"), runnerDir: join(root, "runner-2"), inputs, event, env });
  secondHeads = remoteHeads();
  // A person closes the report PR before the retry: it must stay closed, and get no second PR.
  standIn.pulls[2]!.state = "closed";
  retry = await runRecorded({
    workspace: checkoutAs("run-3"),
    runnerDir: join(root, "runner-3"),
    inputs: { ...inputs, mode: "retry" },
    event,
    env,
  });
}, 300_000);

afterAll(async () => {
  await standIn?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the Action, run as the runner runs dist/index.js", () => {
  it("finishes without failing the job although a node failed (nodes are reported, not fatal)", () => {
    if (first.code !== 0) console.error(first.stdout.slice(-3000), first.stderr.slice(-3000));
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).not.toContain("::error");
    expect(first.outputs).toMatchObject({ passed: "11", failed: "1", skipped: "2", branch: "rpg-forge/statkit" });
    expect(second.code).toBe(0);
  });

  it("pushes a branch per subgraph, the run branch and the run's tags", () => {
    const refs = Object.keys(firstHeads);
    expect(refs).toEqual(
      expect.arrayContaining([
        "refs/heads/main",
        "refs/heads/rpg-forge/statkit",
        "refs/heads/rpg/statkit/validation",
        "refs/heads/rpg/statkit/stats",
        "refs/heads/rpg/statkit/report",
      ]),
    );
    expect(
      refs
        .filter((r) => r.startsWith("refs/tags/rpg/"))
        .map((r) => r.split("/").at(-1))
        .sort(),
    ).toEqual(["report", "stats", "validation"]);
    // Each subgraph's branch holds its own commit on top of the branch it needs.
    const log = git(remote, "log", "--format=%s", "rpg/statkit/stats");
    expect(log.split("\n").slice(0, 2)).toEqual([
      expect.stringMatching(/^feat: complete .*stats/i),
      expect.stringMatching(/^feat: complete .*validation/i),
    ]);
    expect(git(remote, "show", "rpg/statkit/report:docs/generation_checkpoint.json")).toContain('"report.format_number"');
    // The repository's .github/rpg-forge.yml says `mutants: 0`, and the engine took it.
    expect(git(remote, "show", "rpg/statkit/stats:docs/generation_checkpoint.json")).not.toContain('"test_strength"');
  });

  it("opens one PR per subgraph, stacked in the merge order its body states, and links them", () => {
    // (The report PR was closed by "a person" before the retry; see below.)
    const prs = standIn.pulls.map((pr) => ({ head: pr.head.ref, base: pr.base.ref }));
    expect(prs).toEqual([
      { head: "rpg/statkit/validation", base: "main" },
      { head: "rpg/statkit/stats", base: "rpg/statkit/validation" },
      { head: "rpg/statkit/report", base: "rpg/statkit/stats" },
    ]);
    const [validation, stats, report] = standIn.pulls;
    expect(validation!.body).toContain("**Merge order:** 1 of 3: **`validation` (this one)** → `stats` → `report`");
    expect(report!.body).toContain(
      `**Merge order:** 3 of 3: #${validation!.number} \`validation\` → #${stats!.number} \`stats\` → **\`report\` (this one)**`,
    );
    expect(report!.body).toContain(`Merge #${validation!.number} \`validation\`, then #${stats!.number} \`stats\` first`);
    expect(stats!.body).toContain(`#${validation!.number}`);
    expect(JSON.parse(first.outputs["pull-requests"]!)).toEqual({
      validation: { number: validation!.number, url: validation!.html_url },
      stats: { number: stats!.number, url: stats!.html_url },
      report: { number: standIn.pulls[2]!.number, url: standIn.pulls[2]!.html_url },
    });
  });

  it("comments the report on every PR and the failed node's context on its subgraph's PR, once each across reruns", () => {
    const report = standIn.pulls[2]!;
    const on = (n: number) => standIn.comments.filter((c) => c.issue_number === n);
    for (const pr of standIn.pulls) expect(on(pr.number).filter((c) => c.body.includes("rpg-forge:report:"))).toHaveLength(1);
    expect(on(issue).filter((c) => c.body.includes("rpg-forge:run-report:"))).toHaveLength(1);
    const failed = on(report.number).filter((c) => c.body.includes("rpg-forge:failed-node:"));
    expect(failed).toHaveLength(1);
    expect(failed[0]!.body).toContain("report.format_number");
    expect(failed[0]!.body).toContain("Diagnosis votes (");
    // The repository's .github/rpg-forge.yml says `max-iterations: 1`, and the engine took it.
    expect(failed[0]!.body).toContain("tests still failing after 1 debug iteration:");
    // The subgraphs whose nodes all passed show their integration tests on their PR: stats at the threshold.
    const stats = standIn.pulls.find((p) => p.head.ref === "rpg/statkit/stats")!;
    const statsReport = on(stats.number).find((c) => c.body.includes("rpg-forge:report:"))!.body;
    expect(statsReport).toContain("#### Integration tests");
    expect(statsReport).toContain("4 of 5 (80%) passed, ✅ validated.");
    expect(statsReport).toContain("`tests/integration/test_stats.py::test_z_scores_use_the_sample_deviation`");
    expect(failed[0]!.body).toContain("gh workflow run rpg-generate.yml -f mode=retry -f rpg-path=rpg.json -f nodes=report.format_number");
    expect(standIn.comments).toHaveLength(5);
  });

  it("writes nothing on GitHub on a rerun that changes nothing, and leaves the branches whose work did not change", () => {
    const writes = (run: ActionRun) => requestsOf.get(run)!.filter((r) => r.method !== "GET");
    const creates = writes(first).filter((r) => r.method === "POST" && /\/pulls$/.test(r.path));
    expect(creates).toHaveLength(3);
    // PR titles and bodies, the report and failed-node comments and the issue's run report carry no
    // run id, clock or duration: the second run finds each as it would write it, and leaves it.
    expect(writes(second).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(requestsOf.get(second)!.some((r) => r.operationId === "issues/list-comments")).toBe(true);
    const head = (branch: string) => `refs/heads/rpg/statkit/${branch}`;
    expect(secondHeads[head("validation")]).toBe(firstHeads[head("validation")]);
    expect(secondHeads[head("stats")]).toBe(firstHeads[head("stats")]);
    // The report's failed node was tried again: its checkpoint records the attempt, on the same stack.
    expect(git(remote, "rev-parse", `${secondHeads[head("report")]}^`)).toBe(secondHeads[head("stats")]);
  });

  it("posts the run report on the issue without what changes on every run, and keeps it in the job summary", () => {
    const onIssue = standIn.comments.filter((c) => c.issue_number === issue);
    expect(onIssue).toHaveLength(1);
    const body = onIssue[0]!.body;
    expect(body).toContain("### rpg-forge: 11 of 14 nodes pass (`rpg.json`)");
    expect(body).toContain("- **Package test suite**: 62 of 62 passing");
    expect(body).not.toMatch(/\d{8}T\d{6}Z|Generation Time|Git History|\(new\)/);
    expect(second.summary).toMatch(/- \*\*Run\*\*: \d{8}T\d{6}Z-[0-9a-f]{8}/);
    expect(second.summary).toContain("## Git History");
  });

  it("reports the run's history up to the head it pushed, in the job summary; the committed report has no run details", () => {
    const head = git(remote, "log", "-1", "--format=%h %s", "rpg-forge/statkit");
    const history = retry.summary.split("## Git History\n\n```\n")[1]!;
    expect(history.split("\n")[0]).toBe(
      `${head} (HEAD -> rpg-forge/statkit, tag: ${git(remote, "tag", "--points-at", "rpg-forge/statkit")})`,
    );
    expect(git(remote, "show", "rpg-forge/statkit:docs/generation_report.md")).not.toMatch(/Git History|Generation Time|\d{8}T\d{6}Z/);
  });

  it("retries the failed node on top of the open PRs' work, into the same PRs and comments", () => {
    expect(retry.code).toBe(0);
    expect(retry.stdout).toMatch(/Resuming run .*: 3 of \d+ nodes to generate/);
    expect(retry.outputs).toMatchObject({ passed: "11", failed: "1", skipped: "2" });
    const after = remoteHeads();
    const run = "refs/heads/rpg-forge/statkit";
    expect(after[run]).not.toBe(secondHeads[run]);
    // The run branch records this run: from the base, a commit per subgraph.
    expect(git(remote, "log", "--format=%s", `main..${run}`).split("\n")).toHaveLength(3);
    expect(standIn.pulls).toHaveLength(3);
    expect(standIn.pulls[2]!.state).toBe("closed");
    expect(Object.keys(JSON.parse(retry.outputs["pull-requests"]!) as object).sort()).toEqual(["stats", "validation"]);
    expect(retry.summary).toContain(
      `Pull requests closed by a person stay closed; their branches were still updated: #${standIn.pulls[2]!.number} (\`report\`)`,
    );
    // Its nodes fail and pass as before; only the issue's report changes, to name the closed PR.
    const writes = requestsOf.get(retry)!.filter((r) => r.method !== "GET");
    const issueComment = standIn.comments.find((c) => c.issue_number === issue)!;
    expect(writes.map((r) => `${r.method} ${r.path}`)).toEqual([`PATCH /repos/octo/statkit/issues/comments/${issueComment.id}`]);
    expect(issueComment.body).toContain("Pull requests closed by a person stay closed");
    expect(standIn.comments).toHaveLength(5);
  });

  it("makes only requests GitHub's REST description has, with their required fields", () => {
    expect(standIn.violations).toEqual([]);
    expect(standIn.requests.length).toBeGreaterThan(10);
  });

  it("keeps the runner from taking generated text for workflow commands while it prints it", () => {
    const lines = first.stdout.split("\n");
    const stop = lines.findIndex((l) => /^::stop-commands::[0-9a-f-]{36}$/.test(l));
    expect(stop).toBeGreaterThanOrEqual(0);
    const resume = lines.indexOf(`::${lines[stop]!.slice("::stop-commands::".length)}::`);
    const progress = lines.findIndex((l) => l.includes("stats.mean passed"));
    expect(stop).toBeLessThan(progress);
    expect(progress).toBeLessThan(resume);
  });

  it("writes the report to the job summary and never prints the token", () => {
    expect(first.summary).toContain("## Pull requests");
    expect(first.summary).toContain("Code Generation Report");
    for (const run of [first, second, retry]) {
      // The one line that names it is the runner's instruction to mask it everywhere else.
      expect(run.stdout).toContain(`::add-mask::${TOKEN}`);
      const shown = run.stdout.replace(`::add-mask::${TOKEN}`, "") + run.stderr + run.summary;
      expect(shown).not.toContain(TOKEN);
    }
  });
});

// The shipped example's PRs as a new user meets them (14 nodes in 3 subgraphs, one node failing and two skipped),
// merged from the remote as the first run left it: the promise that what a person merges, in the stated order and with
// the repository's merge method, is a package whose tests pass. Each method merges a copy of that remote.
describe("merging the shipped example's PRs", () => {
  const ORDER = ["rpg/statkit/validation", "rpg/statkit/stats", "rpg/statkit/report"];
  let run: MergedGraph;

  beforeAll(async () => {
    const merging = join(root, "merging");
    mkdirSync(merging);
    run = await mergeGenerated(merging, generated, opened, "statkit", ORDER, "rebase");
  }, 300_000);

  it("states the merge order in every PR body", () => {
    expect(run.opened.map((p) => p.body ?? "").map((b) => /\*\*Merge order:\*\* (\d) of 3/.exec(b)?.[1])).toEqual(["1", "2", "3"]);
  });

  it("has every PR branch install and pass its own suite, each a true snapshot", () => {
    expect(run.alone).toEqual([26, 60, 62]);
    const pending = (branch: string) =>
      Object.values(
        (JSON.parse(git(run.remote, "show", `${branch}:docs/generation_checkpoint.json`)) as { nodes: Record<string, { status: string }> })
          .nodes,
      ).filter((n) => n.status === "pending").length;
    expect(ORDER.map(pending)).toEqual([11, 4, 0]);
  });

  it.each(["merge", "squash", "rebase"] as const)(
    "merges by %s in order without a conflict, into the package with all its tests passing",
    (method) => {
      const { merged, main } = run.results.get(method)!;
      expect(merged.map((m) => m.head)).toEqual(ORDER);
      expect(merged[1]!.diff.filter((f) => f.endsWith(".py"))).toEqual(EXAMPLE_STATS_PYTHON_FILES);
      expect(installAndTest(run.venv, main, run.root, "statkit")).toBe(62);
      expect(readFileSync(join(main, "README.md"), "utf8")).toContain("# statkit\n\nOur plan, in rpg.json.");
      expect(readFileSync(join(main, "docs/generation_report.md"), "utf8")).toContain("### `report.format_number`: `format_number`");
    },
  );
});
