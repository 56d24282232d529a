import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../helpers/github-stand-in.js";
import { kindOf, nodeOf, startScriptedModel, type ScriptedModel } from "../helpers/scripted-model.js";
import {
  runsWaiting,
  dispatches,
  example,
  hasConfig,
  hasRole,
  listsComments,
  comments,
  mintsToken,
  recorder,
  useApp,
} from "../app/harness.js";
import { TOKEN, checkout, git } from "./fixtures.js";
import { runAction } from "./run-action.js";
import { DIAMOND, actionRun, inMergeOrder, seedRemoteWith, standInEnv } from "./stack-merging.js";

/**
 * Issue 15, end to end: a person requests changes on an rpg-forge pull request with an inline
 * comment on a node's code. The App (a signed delivery) dispatches a revise for the review; the
 * bundled Action, run with exactly those inputs, reads the review from GitHub (the stand-in),
 * regenerates the node with the comment as a note, and the PR gets the revised node's new commit
 * (the PRs above it restacked on it) and a reply to the comment.
 */

const BASE = "rpg/dia/base";
const REVIEWER = { login: "Codertocat", id: 583231, type: "User" as const };

const CLEAN_TESTS =
  'from dia.base import clean\n\n\ndef test_clean_tabs():\n    assert clean("\\ta \\t b ") == "a b"\n\n\ndef test_clean_empty():\n    assert clean("   ") == ""\n';
const CLEAN_V2 =
  'def clean(text: str) -> str:\n    """Trim text and collapse runs of whitespace into one space."""\n    # Revised: str.split() with no argument splits on any run of whitespace.\n    return " ".join(text.split())\n';

const app = useApp();

describe("a review requesting changes on an rpg-forge pull request", () => {
  let root: string;
  let remote: string;
  let standIn: GitHubStandIn;
  let model: ScriptedModel;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "rpg-forge-review-"));
    remote = seedRemoteWith(root, DIAMOND);
    standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit", remote });
    await actionRun(root, remote, standIn, { mode: "generate", replay: join(DIAMOND.dir, "cassette.jsonl") });
    model = await startScriptedModel({
      "base.clean": {
        tests: [{ test_code: CLEAN_TESTS, notes: "" }],
        implementation: [{ imports: [], code: CLEAN_V2, support: "", notes: "" }],
      },
    });
  }, 180_000);

  afterAll(async () => {
    await standIn?.close();
    await model?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("revises the node the comment is on, pushes its new commit to the PR, and replies to the comment", async () => {
    const pull = inMergeOrder(standIn.pulls).find((p) => p.head.ref === BASE)!;
    const before = { base: git(remote, "rev-parse", BASE), left: git(remote, "rev-parse", "rpg/dia/left") };
    const source = git(remote, "show", `${BASE}:src/dia/base.py`).split("\n");
    const line = source.findIndex((l) => l.startsWith("def clean")) + 1;
    expect(line).toBeGreaterThan(0);
    const review = standIn.addReview({
      pull: pull.number,
      user: REVIEWER,
      body: "Tabs are whitespace too.",
      comments: [
        { path: "src/dia/base.py", line, body: "Split on any whitespace: tabs are left as they are today." },
        { path: "pyproject.toml", line: 1, body: "And bump the version?" },
      ],
    });

    // The App, on GitHub's signed delivery of the review.
    mintsToken();
    hasConfig();
    hasRole(REVIEWER.login, "write");
    listsComments(pull.number, []);
    runsWaiting();
    const dispatch = recorder();
    dispatches(dispatch);
    comments(pull.number, recorder());
    const payload = example("pull_request_review.submitted", (p) => {
      Object.assign(p.review, { id: review.id, state: "changes_requested" });
      p.pull_request.number = pull.number;
      Object.assign(p.pull_request.head, { ref: BASE });
      p.pull_request.head.repo!.full_name = "octo/statkit";
      p.sender.login = REVIEWER.login;
    });
    expect(await app.deliver({ event: "pull_request_review", payload })).toBe(200);
    const { inputs } = dispatch.bodies[0] as { inputs: Record<string, string> };
    expect(inputs).toMatchObject({ mode: "revise", request: `review-${review.id}`, issue: String(pull.number) });

    // The workflow the App started: the bundled Action with those inputs.
    const run = await runAction({
      workspace: checkout(root, remote, "revise-job"),
      runnerDir: join(root, "runner-revise"),
      inputs: { ...inputs, "github-token": TOKEN, sandbox: "process" },
      event: { name: "workflow_dispatch", payload: { inputs, repository: { default_branch: "main" } } },
      env: {
        ...standInEnv(standIn),
        OPENAI_API_KEY: "sk-test-key",
        OPENAI_BASE_URL: model.url,
      },
    });
    expect(run.code, run.stdout.slice(-3000)).toBe(0);

    // The node was asked again with the comment and the review as notes.
    const asked = JSON.stringify(model.requestsOf("base.clean", "tests")[0]!.body.messages);
    expect(asked).toContain("Split on any whitespace");
    expect(asked).toContain("Tabs are whitespace too.");
    // Its PR has the new commit, with the new code; the PR above it is restacked on it.
    const after = git(remote, "rev-parse", BASE);
    expect(after).not.toBe(before.base);
    expect(git(remote, "show", `${BASE}:src/dia/base.py`)).toContain("Revised: str.split()");
    expect(git(remote, "show", `${BASE}:tests/test_base.py`)).toContain("test_clean_tabs");
    expect(git(remote, "rev-parse", "rpg/dia/left^")).toBe(after);
    expect(git(remote, "rev-parse", "rpg/dia/left")).not.toBe(before.left);
    expect(standIn.pulls.find((p) => p.number === pull.number)!.head.sha).toBe(after);
    // Each inline comment has one reply: what became of its node, or why it named none.
    const replies = standIn.reviewComments.filter((c) => c.in_reply_to_id !== undefined);
    const [onCode, onPyproject] = standIn.reviewComments.filter((c) => c.review_id === review.id && c.in_reply_to_id === undefined);
    expect(replies.find((r) => r.in_reply_to_id === onCode!.id)!.body).toContain("rpg-forge revised `base.clean` with this comment");
    expect(replies.find((r) => r.in_reply_to_id === onPyproject!.id)!.body).toContain("the file is not a module or test file of a node");
    expect(replies).toHaveLength(2);
    // Only the node asked for was generated again; its subgraph, one of whose leaves changed, was asked for integration tests again.
    const askedOf = (integration: boolean) =>
      new Set(model.requests.filter((r) => (kindOf(r.body) === "integration_tests") === integration).map((r) => nodeOf(r.body)));
    expect(askedOf(false)).toEqual(new Set(["base.clean"]));
    expect(askedOf(true)).toEqual(new Set(["base"]));
  }, 180_000);
});
