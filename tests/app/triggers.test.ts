import { describe, expect, it } from "vitest";

import { dispatchInputs } from "../../src/config/dispatch-inputs.js";
import {
  comments,
  dispatches,
  example,
  hasConfig,
  hasRole,
  hasWorkflow,
  listsComments,
  mintsToken,
  reactsToIssue,
  recorder,
  useApp,
} from "./harness.js";

const app = useApp();

/** GitHub's issues.labeled example (issue #1, labeled by Codertocat) with this label. */
const labeled = (label: string, sender: "User" | "Bot" = "User") =>
  example("issues.labeled", (p) => {
    p.label!.name = label;
    p.sender.type = sender;
  });

/** GitHub's pull_request.closed example (#2), merged or not, from this head branch of octo/statkit (or of a fork) into main. */
const closed = (options: { merged: boolean; head: string; fork?: boolean; sender?: "User" | "Bot" }) =>
  example("pull_request.closed", (p) => {
    p.pull_request.merged = options.merged;
    p.pull_request.head.ref = options.head;
    p.pull_request.head.repo!.full_name = options.fork ? "someone/statkit" : "octo/statkit";
    p.pull_request.base.ref = "main";
    p.sender.type = options.sender ?? "User";
  });

describe("the generate label", () => {
  it("dispatches mode generate for the configured graph, reporting to the issue, after 👀", async () => {
    mintsToken();
    hasConfig();
    hasRole("Codertocat", "write");
    reactsToIssue(1, "eyes");
    listsComments(1, []); // an earlier refusal of the issue's graph, if any, is edited
    const dispatch = recorder();
    dispatches(dispatch);

    expect(await app.deliver({ event: "issues", payload: labeled("generate") })).toBe(200);

    expect(dispatch.bodies).toEqual([{ ref: "main", inputs: dispatchInputs({ "rpg-path": "rpg.json", mode: "generate", issue: "1" }) }]);
  });

  it("is the label the config names, and the run is for the config's first graph", async () => {
    mintsToken();
    hasConfig("label: rpg-forge\nrpg: [graphs/stats.json, graphs/report.json]\n");
    hasRole("Codertocat", "admin");
    reactsToIssue(1, "eyes");
    listsComments(1, []);
    const dispatch = recorder();
    dispatches(dispatch);
    await app.deliver({ event: "issues", payload: labeled("rpg-forge") });

    hasConfig("label: rpg-forge\n");
    await app.deliver({ event: "issues", payload: labeled("generate") });

    expect(dispatch.bodies).toEqual([{ ref: "main", inputs: { "rpg-path": "graphs/stats.json", mode: "generate", issue: "1" } }]);
  });

  it("set by someone who can only triage gets the refusal, not a run", async () => {
    mintsToken();
    hasConfig();
    hasRole("Codertocat", "triage");
    listsComments(1, []);
    const refusal = recorder();
    comments(1, refusal);

    await app.deliver({ event: "issues", payload: labeled("generate") });

    expect(refusal.bodies).toHaveLength(1);
  });

  it("with a misspelt key in the config starts nothing and says so on the issue, once, naming the key", async () => {
    mintsToken();
    hasConfig("lable: rpg-forge\n");
    listsComments(1, []);
    const said = recorder();
    comments(1, said);

    expect(await app.deliver({ event: "issues", payload: labeled("generate") })).toBe(200);

    expect(said.bodies).toHaveLength(1);
    const body = (said.bodies[0] as { body: string }).body;
    expect(body).toContain("rpg-forge cannot read this repository's configuration");
    expect(body).toContain("lable: unknown setting; did you mean label?");
    expect(body).toMatch(/^<!-- rpg-forge:config-invalid:/);
  });

  it("with a bad config, a label other than the default one is not taken for a request", async () => {
    mintsToken();
    hasConfig("lable: rpg-forge\n");
    expect(await app.deliver({ event: "issues", payload: labeled("bug") })).toBe(200);
  });

  it("set by a bot is ignored before any API call", async () => {
    expect(await app.deliver({ event: "issues", payload: labeled("generate", "Bot") })).toBe(200);
  });
});

describe("a merged rpg-forge pull request", () => {
  it("dispatches mode restack onto the pull request's base branch", async () => {
    mintsToken();
    hasConfig();
    hasWorkflow("on:\n  push:\n    paths: ['**/rpg.json']\n  workflow_dispatch: {}\n");
    const dispatch = recorder();
    dispatches(dispatch);

    expect(await app.deliver({ event: "pull_request", payload: closed({ merged: true, head: "rpg/statkit/core" }) })).toBe(200);

    expect(dispatch.bodies).toEqual([
      { ref: "main", inputs: dispatchInputs({ "rpg-path": "rpg.json", mode: "restack", "base-branch": "main" }) },
    ]);
  });

  it("restacks when a merge queue or auto-merge merged it as a bot: merging took write access", async () => {
    mintsToken();
    hasConfig();
    hasWorkflow();
    const dispatch = recorder();
    dispatches(dispatch);

    await app.deliver({ event: "pull_request", payload: closed({ merged: true, head: "rpg/statkit/core", sender: "Bot" }) });

    expect(dispatch.bodies).toHaveLength(1);
  });

  it("leaves the restack to a workflow that restacks on its own (the template does), so it never runs twice", async () => {
    mintsToken(); // once: the App keeps the installation token
    for (const on of ["pull_request", "[push, pull_request]", "\n  pull_request:\n    types: [closed]\n  push: {}"]) {
      hasConfig();
      hasWorkflow(`name: rpg-forge\non: ${on}\njobs: {}\n`);
      expect(await app.deliver({ event: "pull_request", payload: closed({ merged: true, head: "rpg/statkit/core" }) })).toBe(200);
    }
    // (No dispatch interceptor: a dispatch would be an unmatched request, and the test would fail.)
  });

  it("closed without merging, another branch, or a fork's starts nothing, before any API call", async () => {
    for (const payload of [
      closed({ merged: false, head: "rpg/statkit/core" }),
      closed({ merged: true, head: "feature/faster-mean" }),
      closed({ merged: true, head: "rpg/statkit/core", fork: true }),
    ])
      expect(await app.deliver({ event: "pull_request", payload })).toBe(200);
  });
});
