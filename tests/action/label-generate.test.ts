import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchInputs } from "../../src/config/dispatch-inputs.js";
import { commentMarker } from "../../src/github/comments.js";
import { startGitHubStandIn, type GitHubStandIn } from "../helpers/github-stand-in.js";
import {
  APP_ID,
  dispatches,
  example,
  hasConfig,
  hasRole,
  listsComments,
  mintsToken,
  reactsToIssue,
  recorder,
  useApp,
} from "../app/harness.js";
import { TOKEN, git } from "./fixtures.js";
import { runAction } from "./run-action.js";
import { DIAMOND, inMergeOrder, seedRemoteWith, standInEnv } from "./stack-merging.js";

/**
 * Issue 15, end to end: a person labels an issue `generate`, the issue naming the graph (`rpg: rpg.json`,
 * decision 0015). The App (a signed delivery, GitHub's API for it nock) dispatches the workflow; the bundled
 * Action, run as a child process with exactly that dispatch's inputs and ref and the App's credentials, mints
 * an installation token from the stand-in (the App's installation there) and writes as the App: one PR per
 * subgraph, stacked, each linking back to the issue, a check run per PR, and the report on the issue and PRs.
 */

const PERSON = "Codertocat";
const BOT = { login: "rpg-forge[bot]", type: "Bot" };

const app = useApp();

describe("the generate label on an issue naming the graph, from the delivery to the pull requests", () => {
  let root: string;
  let remote: string;
  let standIn: GitHubStandIn;
  // The rpg-forge App's key pair: the Action signs its JWT with the private key, the stand-in verifies it with the public one.
  const keys = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "rpg-forge-label-"));
    remote = seedRemoteWith(root, DIAMOND);
    standIn = await startGitHubStandIn({
      owner: "octo",
      repo: "statkit",
      remote,
      app: { id: APP_ID, slug: "rpg-forge", name: "rpg-forge", publicKey: keys.publicKey },
    });
  });

  afterAll(async () => {
    await standIn?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("dispatches generate for the named graph, and the run opens the stacked PRs with check runs and reports, as the App", async () => {
    const issue = standIn.addIssue({
      title: "Generate dia",
      body: "Please generate the text helpers.\n\nrpg: rpg.json\n",
      labels: ["generate"],
    });

    // The App, on GitHub's signed delivery of the label.
    mintsToken();
    hasConfig();
    hasRole(PERSON, "write");
    reactsToIssue(issue, "eyes");
    listsComments(issue, []);
    const dispatch = recorder();
    dispatches(dispatch);
    const payload = example("issues.labeled", (p) => {
      p.label!.name = "generate";
      Object.assign(p.issue, { number: issue, body: standIn.issues[0]!.body });
      p.sender.login = PERSON;
    });
    expect(await app.deliver({ event: "issues", payload })).toBe(200);
    expect(dispatch.bodies).toHaveLength(1);
    const { ref, inputs } = dispatch.bodies[0] as { ref: string; inputs: Record<string, string> };
    // The path form: the graph is the repository's, so the run is on the default branch and the App wrote nothing to git.
    expect({ ref, inputs }).toEqual({
      ref: "main",
      inputs: dispatchInputs({ "rpg-path": "rpg.json", mode: "generate", issue: String(issue) }),
    });

    // The workflow the App started: the bundled Action with those inputs, on a checkout of that ref.
    const workspace = join(root, "generate-job");
    execFileSync("git", ["clone", "--quiet", "--branch", ref, remote, workspace]);
    const run = await runAction({
      workspace,
      runnerDir: join(root, "runner-generate"),
      inputs: {
        ...inputs,
        "github-token": TOKEN,
        "app-id": String(APP_ID),
        "app-private-key": keys.privateKey,
        replay: join(DIAMOND.dir, "cassette.jsonl"),
        sandbox: "process",
      },
      event: { name: "workflow_dispatch", payload: { inputs, ref: `refs/heads/${ref}`, repository: { default_branch: "main" } } },
      env: standInEnv(standIn),
    });
    expect(run.code, `${run.stdout.slice(-4000)}\n${run.stderr}`).toBe(0);

    // One PR per subgraph, stacked in merge order: each on the branch of the one before, the first on main.
    const pulls = inMergeOrder(standIn.pulls);
    expect(pulls.map((p) => p.head.ref).sort()).toEqual(["base", "left", "right", "top"].map((s) => `rpg/dia/${s}`));
    expect(pulls.map((p) => p.base.ref)).toEqual(["main", ...pulls.slice(0, -1).map((p) => p.head.ref)]);
    for (const pull of pulls) {
      const subgraph = pull.head.ref.replace("rpg/dia/", "");
      expect(pull.head.sha).toBe(git(remote, "rev-parse", pull.head.ref));
      expect(pull.body).toContain(`Requested in #${issue}.`);
      // Its check run, by our App, on its head, passing.
      const checks = standIn.checkRuns.filter((r) => r.name === `rpg-forge / ${subgraph}`);
      expect(checks.map((r) => ({ head: r.head_sha, conclusion: r.conclusion, app: r.app.id }))).toEqual([
        { head: pull.head.sha, conclusion: "success", app: APP_ID },
      ]);
      // Its report comment.
      const reports = standIn.comments.filter(
        (c) => c.issue_number === pull.number && c.body.startsWith(commentMarker("report", subgraph)),
      );
      expect(reports, `the report on PR #${pull.number}`).toHaveLength(1);
    }
    expect(standIn.checkRuns).toHaveLength(4);
    // The run's report on the issue that asked for it.
    const onIssue = standIn.comments.filter((c) => c.issue_number === issue);
    expect(onIssue.map((c) => c.body.split("\n")[0])).toEqual([commentMarker("run-report", "rpg.json")]);
    expect(onIssue[0]!.body).toContain("### rpg-forge: 4 of 4 nodes pass (`rpg.json`)");
    for (const pull of pulls) expect(onIssue[0]!.body).toContain(`#${pull.number}`);

    // Everything was written as the App, with the installation token the stand-in minted, never with GITHUB_TOKEN.
    expect(standIn.installationTokens.length).toBeGreaterThan(0);
    expect(standIn.pulls.map((p) => p.user)).toEqual(Array(4).fill(expect.objectContaining(BOT)));
    expect(standIn.comments.map((c) => ({ ...c.user, app: c.app?.id }))).toEqual(
      Array(standIn.comments.length).fill(expect.objectContaining({ ...BOT, app: APP_ID })),
    );
    const writes = standIn.requests.filter((r) => r.method !== "GET" && !r.operationId?.startsWith("apps/"));
    expect(writes.length).toBeGreaterThan(0);
    expect(new Set(writes.map((r) => r.headers.authorization?.replace(/\d+$/, "<n>")))).toEqual(new Set(["token ghs_stand_in_<n>"]));
    expect(standIn.requests.some((r) => r.headers.authorization?.includes(TOKEN))).toBe(false);
    expect(run.summary).not.toContain("Written with GITHUB_TOKEN");
    expect(standIn.violations).toEqual([]);
  }, 120_000);
});
