import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import nock from "nock";
import { afterAll, afterEach, beforeEach, expect, it, vi } from "vitest";

import type { ActionContext } from "../../src/action/context.js";
import { reportInvalidRpg } from "../../src/action/invalid-rpg.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
const loaded = parseRpgText(text(rpgDoc([leaf({ id: "stats.mean", docstring: "" })])), "rpg.json");
if (loaded.ok) throw new Error("the test RPG should be invalid");

// One file for the whole file: @actions/core keeps the summary's path once it has read it.
const dir = mkdtempSync(join(tmpdir(), "rpg-forge-test-"));
const summary = join(dir, "summary.md");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  nock.disableNetConnect();
  writeFileSync(summary, "");
  vi.stubEnv("GITHUB_STEP_SUMMARY", summary);
  vi.spyOn(process.stdout, "write").mockImplementation(() => true); // core.error's workflow commands
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  process.exitCode = undefined; // core.setFailed
  const unused = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  expect(unused).toEqual([]);
});

// A dispatched run's event (workflow_dispatch) names no issue: the App's `issue` input says where to report.
const context: ActionContext = {
  workspace: "/tmp/none",
  repository: { owner: "octo", repo: "statkit" },
  apiUrl: "https://api.github.com",
  serverUrl: "https://github.com",
  event: { inputs: { issue: "7" }, repository: { default_branch: "main" } },
  workflowRef: undefined,
};

it("on a dispatched run, lists the problems on the issue of the issue input, as the summary does", async () => {
  const posted: string[] = [];
  nock("https://api.github.com")
    .get("/repos/octo/statkit/issues/7/comments")
    .query(true)
    .reply(200, [])
    .post("/repos/octo/statkit/issues/7/comments", (b: { body: string }) => (posted.push(b.body), true))
    .reply(201, { id: 1, html_url: "https://github.com/octo/statkit/issues/7#issuecomment-1" });

  await reportInvalidRpg(loaded.issues, "rpg.json", "ghs_token", context, 7);

  expect(posted).toHaveLength(1);
  expect(posted[0]).toMatch(/^<!-- rpg-forge:invalid-rpg:rpg\.json -->\n### rpg-forge: `rpg\.json` is invalid\n/);
  expect(posted[0]).toContain("- `RPG_MISSING_DOCSTRING stats.mean docstring: ");
  expect(readFileSync(summary, "utf8")).toContain("- `RPG_MISSING_DOCSTRING stats.mean docstring: ");
});

it("without an issue input or an issue in the event, writes only the summary", async () => {
  await reportInvalidRpg(loaded.issues, "rpg.json", "ghs_token", context);
  expect(readFileSync(summary, "utf8")).toContain("1 problem(s); nothing was generated.");
});
