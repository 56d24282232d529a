import { describe, expect, it } from "vitest";

import { renderHelp } from "../../src/app/replies.js";
import { dispatchInputs } from "../../src/config/dispatch-inputs.js";
import {
  comments,
  dispatches,
  getsPull,
  github,
  hasConfig,
  hasRole,
  listed,
  listsComments,
  mintsToken,
  reactsToComment,
  recorder,
  useApp,
  runsWaiting,
} from "./harness.js";
import { COMMENT_ID, COMMENTER, commentOn } from "./payloads.js";

const app = useApp();

/** What every accepted command costs before its own work: a token, the config, the commenter's permission, 👀. */
function accepts(options: { pr?: number; config?: string; role?: "write" | "maintain" | "admin" } = {}) {
  mintsToken();
  hasConfig(options.config);
  if (options.pr !== undefined) getsPull(options.pr, "rpg/statkit/core");
  hasRole(COMMENTER, options.role ?? "write");
  reactsToComment(COMMENT_ID, "eyes");
}

const answerMarker = `<!-- rpg-forge:answer:${COMMENT_ID} -->`;
/** A file on the pull request's branch (rpg/statkit/core), as the contents API serves it raw; undefined: not there. */
function onBranch(path: string, text: string | undefined) {
  const scope = github()
    .get(`/repos/octo/statkit/contents/${encodeURIComponent(path)}`)
    .query({ ref: "rpg/statkit/core" });
  return text === undefined ? scope.reply(404, { message: "Not Found" }) : scope.reply(200, text, { "content-type": "text/plain" });
}

const leaf = (id: string, name: string) => ({
  id,
  name,
  type: "function",
  node_type: "leaf",
  file_path: "src/statkit/stats.py",
  docstring: `The ${name}.`,
  subgraph_id: "core",
});
const STATUS_RPG = {
  metadata: { name: "statkit" },
  subgraphs: [{ id: "core", name: "Core statistics" }],
  nodes: [leaf("stats.mean", "mean"), leaf("stats.median", "median")],
  edges: [],
};
const entry = (status: string, extra: Record<string, unknown> = {}) => ({
  status,
  timestamp: "2026-11-23T10:00:00.000Z",
  retry_count: 0,
  subgraph_id: "core",
  attempts: [],
  ...extra,
});
const STATUS_CHECKPOINT = {
  version: 1,
  run_id: "run-1",
  rpg_sha256: "0".repeat(64),
  created_at: "2026-11-23T10:00:00.000Z",
  updated_at: "2026-11-23T10:00:00.000Z",
  nodes: {
    "stats.mean": entry("passed", { test_strength: { mutants: 3, killed: 3, survivors: [] } }),
    "stats.median": entry("failed", { retry_count: 8, failure_reason: "tests still failing after 8 debug iterations" }),
  },
};

const requestMarker = `<!-- rpg-forge:request:comment-${COMMENT_ID} -->`;
const RUN = {
  workflow_run_id: 5001,
  run_url: "https://api.github.com/repos/octo/statkit/actions/runs/5001",
  html_url: "https://github.com/octo/statkit/actions/runs/5001",
};

describe("/rpg retry and revise", () => {
  it("retry with nodes on an rpg-forge pull request dispatches mode retry for them, reporting to the pull request, then 🚀", async () => {
    accepts({ pr: 7 });
    listsComments(7, []);
    const dispatch = recorder();
    runsWaiting();
    dispatches(dispatch, "rpg-generate.yml", 204, RUN);
    const answer = recorder();
    comments(7, answer);
    reactsToComment(COMMENT_ID, "rocket");

    const status = await app.deliver({
      event: "issue_comment",
      payload: commentOn("/rpg retry stats.mean, stats.median\nthanks!", { pr: 7 }),
    });

    expect(status).toBe(200);
    expect(dispatch.bodies).toEqual([
      { ref: "main", inputs: dispatchInputs({ "rpg-path": "rpg.json", mode: "retry", nodes: "stats.mean stats.median", issue: "7" }) },
    ]);
    // The answer links the run and carries the request's marker: a redelivery to a restarted App finds it.
    expect(answer.bodies).toEqual([
      {
        body: `${requestMarker}\nrpg-forge started \`retry\` for \`/rpg retry\`: [the run](${RUN.html_url}). Its results come here when it ends.`,
      },
    ]);
  });

  it("on a pull request of one of several graphs, dispatches for that graph: the one whose name its branch carries", async () => {
    mintsToken();
    hasConfig("rpg: [graphs/a.json, graphs/b.json]\n");
    getsPull(7, "rpg/beta/core");
    hasRole(COMMENTER, "write");
    reactsToComment(COMMENT_ID, "eyes");
    const graph = (path: string, name: string) =>
      github()
        .get(`/repos/octo/statkit/contents/${encodeURIComponent(path)}`)
        .query({ ref: "main" })
        .reply(200, JSON.stringify({ ...STATUS_RPG, metadata: { name } }), { "content-type": "text/plain" });
    graph("graphs/a.json", "alpha");
    graph("graphs/b.json", "beta");
    listsComments(7, []);
    runsWaiting();
    const dispatch = recorder();
    dispatches(dispatch);
    comments(7, recorder());
    reactsToComment(COMMENT_ID, "rocket");

    await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry", { pr: 7 }) });

    expect(dispatch.bodies).toEqual([{ ref: "main", inputs: { "rpg-path": "graphs/b.json", mode: "retry", issue: "7" } }]);
  });

  it("a request whose answer is there already (a redelivery to a restarted App) dispatches nothing again", async () => {
    accepts({ pr: 7 });
    listsComments(7, [listed(950, 7, `${requestMarker}\nrpg-forge started \`retry\``)]);

    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry stats.mean", { pr: 7 }) })).toBe(200);
  });

  it("retry without nodes on an issue leaves the nodes to the Action; prefix, workflow, graph and permission come from the config", async () => {
    const config = "command: /forge\nworkflow: forge.yml\nrpg: [graphs/stats.json]\npermission: maintain\n";
    accepts({ config, role: "maintain" });
    listsComments(1, []);
    const dispatch = recorder();
    runsWaiting([], "forge.yml");
    dispatches(dispatch, "forge.yml");
    comments(1, recorder());
    reactsToComment(COMMENT_ID, "rocket");

    await app.deliver({ event: "issue_comment", payload: commentOn("/forge retry") });

    expect(dispatch.bodies).toEqual([{ ref: "main", inputs: { "rpg-path": "graphs/stats.json", mode: "retry", issue: "1" } }]);
  });

  it("revise dispatches mode revise for the nodes on the first line; the rest of the comment is the reviewer's note", async () => {
    accepts({ pr: 7 });
    listsComments(7, []);
    const dispatch = recorder();
    runsWaiting();
    dispatches(dispatch);
    comments(7, recorder());
    reactsToComment(COMMENT_ID, "rocket");

    const body = "/rpg revise stats.mean\nThe mean of an empty list must raise ValueError, not return 0.";
    await app.deliver({ event: "issue_comment", payload: commentOn(body, { pr: 7 }) });

    expect(dispatch.bodies).toEqual([
      // The note is not an input: the run reads the comment (`request`) through the API.
      {
        ref: "main",
        inputs: dispatchInputs({
          "rpg-path": "rpg.json",
          mode: "revise",
          nodes: "stats.mean",
          issue: "7",
          request: `comment-${COMMENT_ID}`,
        }),
      },
    ]);
  });

  it("revise without nodes dispatches nothing and answers with the help, saying what was missing", async () => {
    accepts({ pr: 7 });
    listsComments(7, []);
    const answer = recorder();
    comments(7, answer);

    await app.deliver({ event: "issue_comment", payload: commentOn("/rpg revise", { pr: 7 }) });

    expect(answer.bodies).toEqual([
      { body: `${answerMarker}\n${renderHelp("/rpg", "write", "`revise` needs the ids of the nodes to revise")}` },
    ]);
    expect((answer.bodies[0] as { body: string }).body).toContain(
      "rpg-forge did not run that: `revise` needs the ids of the nodes to revise.",
    );
  });

  it("a workflow GitHub cannot dispatch gets a comment naming the file to check, and no 🚀", async () => {
    accepts();
    const dispatch = recorder();
    runsWaiting();
    dispatches(dispatch, "rpg-generate.yml", 404);
    listsComments(1, []);
    const answer = recorder();
    comments(1, answer);

    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry") })).toBe(200);

    expect(dispatch.bodies).toHaveLength(1);
    const [{ body }] = answer.bodies as [{ body: string }];
    expect(body).toMatch(
      /^<!-- rpg-forge:dispatch-failed:comment-492700400 -->\nrpg-forge could not start the workflow `rpg-generate.yml` on `main`: GitHub answered 404 /,
    );
    expect(body).toContain("Check that `.github/workflows/rpg-generate.yml` exists on `main` and has a `workflow_dispatch` trigger");
  });
});

describe("/rpg status, help and the rest", () => {
  it("status on a pull request answers with its node table, read from its branch, and links its report", async () => {
    accepts({ pr: 7 });
    listsComments(7, [listed(11, 7, "<!-- rpg-forge:report:core -->\n### core: 1 of 2 nodes pass")]);
    onBranch("docs/rpg.json", JSON.stringify(STATUS_RPG));
    onBranch("docs/generation_checkpoint.json", JSON.stringify(STATUS_CHECKPOINT));
    const answer = recorder();
    comments(7, answer);

    await app.deliver({ event: "issue_comment", payload: commentOn("/rpg status", { pr: 7 }) });

    const [{ body }] = answer.bodies as [{ body: string }];
    expect(body).toContain("### rpg-forge status of `Core statistics`: 1 of 2 nodes passed");
    expect(body).toContain("The latest report: https://github.com/octo/statkit/issues/7#issuecomment-11");
    expect(body).toMatch(/\| `stats.mean` \| `mean` \| [^|]*passed[^|]* \|/);
    expect(body).toMatch(/\| `stats.median` \| `median` \| [^|]*failed[^|]* \|.*tests still failing after 8 debug iterations \|/);
    // A node failed, so the subgraph has no integration tests; its passed node's tests were measured.
    expect(body).not.toContain("**Integration tests**");
    expect(body).toContain("**Test strength**: the nodes' tests killed 3 of 3 mechanical mutants of their code (100%; decision 0022).");
  });

  it("status on a pull request links its report comment, found by marker among rpg-forge's comments only", async () => {
    accepts({ pr: 7 });
    // A branch with no checkpoint yet (its first run is still going): the answer is the link.
    onBranch("docs/rpg.json", undefined);
    onBranch("docs/generation_checkpoint.json", undefined);
    listsComments(7, [
      listed(10, 7, "<!-- rpg-forge:report:core -->\nquoted by a person", false),
      listed(11, 7, "<!-- rpg-forge:report:core -->\n### core: 3 of 4 nodes pass"),
      listed(12, 7, "<!-- rpg-forge:failed-node:stats.mean -->\nfailed"),
    ]);
    const answer = recorder();
    comments(7, answer);

    await app.deliver({ event: "issue_comment", payload: commentOn("/rpg status", { pr: 7 }) });

    expect(answer.bodies).toEqual([
      {
        body: `${answerMarker}\nThe latest rpg-forge report on this pull request: https://github.com/octo/statkit/issues/7#issuecomment-11`,
      },
    ]);
  });

  it("status on an issue without a run report says so and how to start one", async () => {
    accepts();
    listsComments(1, [listed(12, 1, "<!-- rpg-forge:report:core -->\nnot a run report")]);
    const answer = recorder();
    comments(1, answer);

    await app.deliver({ event: "issue_comment", payload: commentOn("/rpg status") });

    expect(answer.bodies).toEqual([
      { body: `${answerMarker}\nrpg-forge has not reported on this issue yet. \`/rpg retry\` starts a run.` },
    ]);
  });

  it("help answers with the commands", async () => {
    accepts();
    listsComments(1, []);
    const answer = recorder();
    comments(1, answer);

    await app.deliver({ event: "issue_comment", payload: commentOn("/rpg help") });

    const [{ body }] = answer.bodies as [{ body: string }];
    expect(body).toBe(`${answerMarker}\n${renderHelp("/rpg", "write")}`);
    for (const command of ["retry [node...]", "revise <node...>", "status", "help"]) expect(body).toContain(`| \`/rpg ${command}\` |`);
  });

  it("an unknown command gets the help, naming the command it did not know", async () => {
    accepts();
    listsComments(1, []);
    const answer = recorder();
    comments(1, answer);

    await app.deliver({ event: "issue_comment", payload: commentOn("/rpg frobnicate stats.mean") });

    const [{ body }] = answer.bodies as [{ body: string }];
    expect(body).toBe(`${answerMarker}\n${renderHelp("/rpg", "write", "there is no command `frobnicate`")}`);
  });

  it("a comment whose first line is not a command costs one config read and nothing else", async () => {
    mintsToken();
    for (const body of ["Looks good to me.\n/rpg retry", "/rpgretry", "please /rpg retry"]) {
      hasConfig();
      expect(await app.deliver({ event: "issue_comment", payload: commentOn(body) })).toBe(200);
    }
  });
});
