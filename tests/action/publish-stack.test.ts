import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ActionContext } from "../../src/action/context.js";
import { finish } from "../../src/action/finish.js";
import type { ActionInputs } from "../../src/action/inputs.js";
import { publishStack } from "../../src/action/publish-stack.js";
import type { PushedStack } from "../../src/action/push-stack.js";
import { buildPlan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { checkpointEntry, checkpointOf } from "../helpers/checkpoint.js";
import { startGitHubStandIn, type GitHubStandIn } from "../helpers/github-stand-in.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";

// The Action publishes the stack here for generate, retry, revise, restack and matrix mode's report job alike.
const loaded = parseRpgText(
  text(
    rpgDoc([
      leaf({ id: "io.read", subgraph: "io", file: "src/pkg/io.py" }),
      leaf({ id: "stats.mean", subgraph: "stats", file: "src/pkg/stats.py", deps: ["io.read"] }),
      leaf({ id: "stats.median", subgraph: "stats", file: "src/pkg/stats.py", deps: ["io.read"] }),
    ]),
  ),
  "rpg.json",
);
if (!loaded.ok) throw new Error("the test RPG does not validate");
const plan = buildPlan(loaded.value);
const checkpoint = checkpointOf({
  "io.read": checkpointEntry("passed"),
  "stats.mean": checkpointEntry("passed"),
  "stats.median": checkpointEntry("failed", { failure_reason: "AssertionError: median of [1, 2] is 1.5" }),
});
const pushed: PushedStack = {
  branches: new Map([
    ["io", "rpg/pkg/io"],
    ["stats", "rpg/pkg/stats"],
  ]),
  stack: ["io", "stats"],
  held: new Map(),
  heads: new Map([
    ["io", "a".repeat(40)],
    ["stats", "b".repeat(40)],
  ]),
};
const run = { plan, checkpoint, rpgPath: "rpg.json", model: "m" };

let standIn: GitHubStandIn;
let context: ActionContext;
let dir: string;
const inputsWith = (app: { appId: string; appPrivateKey: string }): ActionInputs => ({
  rpgPath: "rpg.json",
  mode: "generate",
  nodes: [],
  subgraphs: [],
  model: "",
  maxIterations: 8,
  concurrency: 1,
  baseBranch: "",
  githubToken: "ghs_token",
  ...app,
  issue: undefined,
  request: undefined,
  replay: "",
  sandbox: "process",
});
const asApp = inputsWith({ appId: "4242", appPrivateKey: "(a key; the token was minted from it already)" });
const asGithubToken = inputsWith({ appId: "", appPrivateKey: "" });

beforeEach(async () => {
  standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit", app: { id: 4242, slug: "rpg-forge", name: "rpg-forge" } });
  dir = mkdtempSync(join(tmpdir(), "rpg-forge-publish-"));
  context = {
    workspace: dir,
    repository: { owner: "octo", repo: "statkit" },
    apiUrl: standIn.url,
    serverUrl: "https://github.com",
    event: { repository: { default_branch: "main" } },
    workflowRef: undefined,
  };
});
afterEach(async () => {
  expect(standIn.violations).toEqual([]);
  await standIn.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("publishing the stack", () => {
  it("as the App: a check run on each pull request's head, found again on the next publish instead of doubled", async () => {
    const prs = await publishStack(asApp, context, run, pushed);
    expect(prs.map((pr) => pr.subgraphId)).toEqual(["io", "stats"]);
    expect(standIn.checkRuns.map((r) => [r.name, r.head_sha, r.conclusion, r.actions.map((a) => a.label)])).toEqual([
      ["rpg-forge / io", "a".repeat(40), "success", []],
      ["rpg-forge / stats", "b".repeat(40), "failure", ["Retry failed"]],
    ]);
    expect(standIn.checkRuns[1]!.annotations).toMatchObject([
      { path: "src/pkg/stats.py", start_line: 1, message: "AssertionError: median of [1, 2] is 1.5" },
    ]);
    const from = standIn.requests.length;
    await publishStack(asApp, context, run, pushed);
    expect(standIn.requests.slice(from).filter((r) => r.method !== "GET")).toEqual([]);
    expect(standIn.checkRuns).toHaveLength(2);
  });

  it("with GITHUB_TOKEN: pull requests and no check run, and the job summary says in one line what is lost", async () => {
    const prs = await publishStack(asGithubToken, context, run, pushed);
    expect(prs).toHaveLength(2);
    expect(standIn.checkRuns).toEqual([]);
    expect(standIn.requests.some((r) => r.path.includes("check-runs"))).toBe(false);

    const summaryFile = join(dir, "summary.md");
    writeFileSync(summaryFile, "");
    process.env.GITHUB_STEP_SUMMARY = summaryFile;
    process.env.GITHUB_OUTPUT = join(dir, "output.txt");
    writeFileSync(process.env.GITHUB_OUTPUT, "");
    try {
      await finish(asGithubToken, context, { ...run, prs, report: "report\n", runId: "r", branch: undefined, whole: true });
    } finally {
      delete process.env.GITHUB_STEP_SUMMARY;
      delete process.env.GITHUB_OUTPUT;
    }
    const lost = readFileSync(summaryFile, "utf8")
      .split("\n")
      .filter((line) => line.includes("GITHUB_TOKEN"));
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/no rpg-forge check runs and no \*\*Retry failed\*\* button.*your CI does not run on them/);
  });
});
