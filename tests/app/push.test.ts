import { describe, expect, it } from "vitest";

import { dispatchInputs } from "../../src/config/dispatch-inputs.js";
import { dispatches, example, hasConfig, hasWorkflow, mintsToken, recorder, useApp } from "./harness.js";

const app = useApp();

/** GitHub's push example, to this ref of octo/statkit (default branch main), with one commit changing these files. */
const pushed = (files: { added?: string[]; modified?: string[] }, ref = "refs/heads/main") =>
  example("push", (p) => {
    p.ref = ref;
    p.repository.default_branch = "main";
    p.commits = [{ ...p.commits[0]!, added: files.added ?? [], modified: files.modified ?? [], removed: [] }];
  });

describe("a push", () => {
  it("of a watched graph to the default branch dispatches generate for it, when the workflow does not run on pushes itself", async () => {
    mintsToken();
    hasConfig("rpg: [graphs/a.json, graphs/b.json]\n");
    hasWorkflow("on:\n  workflow_dispatch: {}\n");
    const dispatch = recorder();
    dispatches(dispatch);

    expect(await app.deliver({ event: "push", payload: pushed({ modified: ["graphs/b.json", "README.md"] }) })).toBe(200);

    expect(dispatch.bodies).toEqual([{ ref: "main", inputs: dispatchInputs({ "rpg-path": "graphs/b.json", mode: "generate" }) }]);
  });

  it("is left to a workflow that runs on pushes by itself (the template does), so it never runs twice", async () => {
    mintsToken();
    hasConfig();
    hasWorkflow("on:\n  push:\n    paths: ['**/rpg.json']\n  workflow_dispatch: {}\n");
    // (No dispatch interceptor: a dispatch would be an unmatched request, and the delivery would fail.)
    expect(await app.deliver({ event: "push", payload: pushed({ added: ["rpg.json"] }) })).toBe(200);
  });

  it("starts nothing for other files, another branch, rpg-forge's own branches, its docs/rpg.json, or with push: nothing", async () => {
    mintsToken();
    for (const payload of [pushed({ modified: ["README.md"] }), pushed({ modified: ["docs/rpg.json"] })]) {
      hasConfig();
      expect(await app.deliver({ event: "push", payload })).toBe(200);
    }
    hasConfig("push: nothing\n");
    expect(await app.deliver({ event: "push", payload: pushed({ modified: ["rpg.json"] }) })).toBe(200);
    // Before any API call: not the default branch.
    // (rpg-forge/issue-<n>: the App's own commit of an issue's graph, decision 0015.)
    for (const ref of [
      "refs/heads/feature",
      "refs/heads/rpg/statkit/core",
      "refs/heads/rpg-work/statkit/core",
      "refs/heads/rpg-forge/issue-1",
    ])
      expect(await app.deliver({ event: "push", payload: pushed({ modified: ["rpg.json"] }, ref) })).toBe(200);
  });
});
