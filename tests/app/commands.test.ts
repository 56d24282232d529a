import { describe, expect, it } from "vitest";

import { renderHelp } from "../../src/app/replies.js";
import { dispatchInputs } from "../../src/config/dispatch-inputs.js";
import {
  comments,
  dispatches,
  getsPull,
  hasConfig,
  hasRole,
  listed,
  listsComments,
  mintsToken,
  reactsToComment,
  recorder,
  useApp,
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
  it("status on a pull request links its report comment, found by marker among rpg-forge's comments only", async () => {
    accepts({ pr: 7 });
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
