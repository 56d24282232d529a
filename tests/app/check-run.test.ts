import { describe, expect, it } from "vitest";

import { renderRefusal } from "../../src/app/replies.js";
import { APP_ID, comments, dispatches, example, hasConfig, hasRole, listsComments, mintsToken, recorder, useApp } from "./harness.js";

const app = useApp();

/** Who presses the button in GitHub's check_run.requested_action example (a person). */
const PRESSER = "codebytere";
const RETRY = "retry-failed";

/** The hidden line the Action writes into its check run's output text (src/report/check-run.ts). */
const stateText = (state: object) => `<!-- rpg-forge:check-run ${JSON.stringify(state)} -->`;
const OURS = stateText({ rpg: "graphs/stats.json", subgraph: "stats", pr: 7, failed: ["stats.mean", "stats.median"] });

/** GitHub's example of a button press on a check run, made ours (our App, our state) unless a case says otherwise. */
function pressed(edit: { identifier?: string; appId?: number; text?: string | null; senderType?: "User" | "Bot" } = {}) {
  return example("check_run.requested_action", (p) => {
    p.requested_action = { identifier: edit.identifier ?? RETRY };
    p.check_run.name = "rpg-forge / stats";
    p.check_run.app!.id = edit.appId ?? APP_ID;
    p.check_run.output.text = edit.text === undefined ? OURS : edit.text;
    p.sender.type = edit.senderType ?? "User";
  });
}

const CONFIG = "rpg: [rpg.json, graphs/stats.json]\n";

describe("Retry failed on an rpg-forge check run", () => {
  it("dispatches mode retry for the failed nodes the check run names, of its graph, reporting to its pull request", async () => {
    mintsToken();
    hasConfig(CONFIG);
    hasRole(PRESSER, "write");
    const dispatch = recorder();
    dispatches(dispatch);

    expect(await app.deliver({ event: "check_run", payload: pressed() })).toBe(200);

    expect(dispatch.bodies).toEqual([
      { ref: "main", inputs: { "rpg-path": "graphs/stats.json", mode: "retry", nodes: "stats.mean stats.median", issue: "7" } },
    ]);
  });

  it("retries every failed node when the list did not fit the check run", async () => {
    mintsToken();
    hasConfig(CONFIG);
    hasRole(PRESSER, "admin");
    const dispatch = recorder();
    dispatches(dispatch);

    await app.deliver({
      event: "check_run",
      payload: pressed({ text: stateText({ rpg: "graphs/stats.json", subgraph: "stats", pr: 7 }) }),
    });

    expect(dispatch.bodies).toEqual([{ ref: "main", inputs: { "rpg-path": "graphs/stats.json", mode: "retry", issue: "7" } }]);
  });

  it("ignores another button, another App's check run, a bot and a check run without our state, before any API call", async () => {
    // No interceptor at all: any request would fail the test (harness: unmatched requests).
    for (const payload of [
      pressed({ identifier: "lgtm|26764" }),
      pressed({ appId: 25811 }),
      pressed({ senderType: "Bot" }),
      pressed({ text: null }),
      pressed({ text: "<!-- rpg-forge:check-run {not json} -->" }),
    ])
      expect(await app.deliver({ event: "check_run", payload })).toBe(200);
  });

  it("refuses someone without write access once, on the check run's pull request, and dispatches nothing", async () => {
    mintsToken();
    hasConfig();
    hasRole(PRESSER, "triage");
    listsComments(7, []);
    const refusal = recorder();
    comments(7, refusal);

    await app.deliver({ event: "check_run", payload: pressed() });

    expect(refusal.bodies).toEqual([{ body: `<!-- rpg-forge:refused:${PRESSER} -->\n${renderRefusal(PRESSER, "write")}` }]);
  });

  it("dispatches once for a redelivered press (same delivery id)", async () => {
    mintsToken();
    hasConfig(CONFIG);
    hasRole(PRESSER, "write");
    const dispatch = recorder();
    dispatches(dispatch);
    const delivery = { event: "check_run", payload: pressed(), id: "5f2c1a40-check-run-redelivered" };

    expect(await app.deliver(delivery)).toBe(200);
    expect(await app.deliver(delivery)).toBe(200);

    expect(dispatch.bodies).toHaveLength(1);
  });

  it("says on the pull request that the configuration is bad, and dispatches nothing", async () => {
    mintsToken();
    hasConfig("permission: everyone\n");
    listsComments(7, []);
    const said = recorder();
    comments(7, said);

    await app.deliver({ event: "check_run", payload: pressed() });

    expect(said.bodies).toEqual([{ body: expect.stringContaining("<!-- rpg-forge:config-invalid:.github/rpg-forge.yml -->") }]);
    expect((said.bodies[0] as { body: string }).body).toContain("permission");
  });
});
