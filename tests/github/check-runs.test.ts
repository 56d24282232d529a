import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Octokit } from "@octokit/rest";
import { Ajv } from "ajv";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Checkpoint, CheckpointEntry } from "../../src/engine/checkpoint.js";
import { publishCheckRuns, type CheckRunsInput } from "../../src/github/check-runs.js";
import type { PublishedPullRequest } from "../../src/github/publish.js";
import { buildPlan } from "../../src/plan/plan.js";
import { parseCheckRunState, renderCheckRun } from "../../src/report/check-run.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { checkpointEntry, checkpointOf } from "../helpers/checkpoint.js";
import { startGitHubStandIn, type GitHubStandIn } from "../helpers/github-stand-in.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";

const APP = { id: 4242, slug: "rpg-forge", name: "rpg-forge" };
// 60 nodes in "core" (one file each, so the annotations can be told apart) and 2 in "io".
const coreIds = Array.from({ length: 60 }, (_, i) => `core.n${String(i + 1).padStart(2, "0")}`);
const loaded = parseRpgText(
  text(
    rpgDoc([
      leaf({ id: "io.read", subgraph: "io", file: "src/pkg/io.py" }),
      leaf({ id: "io.write", subgraph: "io", file: "src/pkg/io.py" }),
      ...coreIds.map((id, i) => leaf({ id, subgraph: "core", file: `src/pkg/core_${i + 1}.py` })),
    ]),
  ),
  "rpg.json",
);
if (!loaded.ok) throw new Error("the test RPG does not validate");
const plan = buildPlan(loaded.value);

const failed = (reason: string): CheckpointEntry =>
  checkpointEntry("failed", { failure_reason: reason, retry_count: 3, test_results: { passed: 1, failed: 2 } });
const passed = checkpointEntry("passed", { retry_count: 1, test_results: { passed: 4, failed: 0 } });
/** io passes; core: the first 55 fail, the rest pass. */
const checkpoint: Checkpoint = checkpointOf({
  "io.read": passed,
  "io.write": passed,
  ...Object.fromEntries(coreIds.map((id, i) => [id, i < 55 ? failed(`AssertionError in test ${i + 1}`) : passed])),
});

const pr = (subgraphId: string, number: number, extra: Partial<PublishedPullRequest> = {}): PublishedPullRequest => ({
  subgraphId,
  number,
  url: `https://github.com/octo-org/stats/pull/${number}`,
  created: true,
  closed: false,
  base: "main",
  ...extra,
});
const SHA = { io: "1".repeat(40), core: "2".repeat(40), closed: "3".repeat(40) };

let standIn: GitHubStandIn;
let input: CheckRunsInput;
beforeEach(async () => {
  standIn = await startGitHubStandIn({ app: APP });
  input = {
    octokit: new Octokit({ auth: "ghs_installation", baseUrl: standIn.url }),
    repository: { owner: standIn.owner, repo: standIn.repo },
    plan,
    checkpoint,
    rpgPath: "rpg.json",
    prs: [pr("io", 1), pr("core", 2)],
    heads: new Map([
      ["io", SHA.io],
      ["core", SHA.core],
    ]),
    appId: APP.id,
  };
});
afterEach(async () => {
  expect(standIn.violations).toEqual([]);
  await standIn.close();
});

const writes = (from = 0) => standIn.requests.slice(from).filter((r) => r.method !== "GET");

describe("check runs of the subgraph pull requests", () => {
  it("creates one per pull request on its head commit, with conclusion, table, annotations 50 at a time, and the button only on failure", async () => {
    expect(await publishCheckRuns(input)).toEqual(
      new Map([
        ["io", "created"],
        ["core", "created"],
      ]),
    );

    expect(standIn.checkRuns.map((r) => [r.name, r.head_sha, r.status, r.conclusion, r.output.title])).toEqual([
      ["rpg-forge / io", SHA.io, "completed", "success", "2 of 2 nodes passed"],
      ["rpg-forge / core", SHA.core, "completed", "failure", "5 of 60 nodes passed"],
    ]);
    const [io, core] = standIn.checkRuns;
    expect(io!.actions).toEqual([]);
    expect(io!.annotations).toEqual([]);
    expect(core!.actions).toEqual([{ label: "Retry failed", identifier: "retry-failed", description: expect.any(String) }]);
    expect(core!.annotations).toHaveLength(55);
    expect(core!.annotations[54]).toEqual({
      path: "src/pkg/core_55.py",
      start_line: 1,
      end_line: 1,
      annotation_level: "failure",
      title: "rpg-forge: node core.n55 failed",
      message: "AssertionError in test 55",
    });
    expect(core!.output.summary).toContain(
      "| `core.n07` | `fn_core_n07` | ❌ failed | 3 | 1 passed, 2 failed | AssertionError in test 7 |",
    );
    expect(core!.output.summary).toContain("| `core.n60` | `fn_core_n60` | ✅ passed | 1 | 4 passed, 0 failed | – |");
    // GitHub takes 50 annotations a request: the create, then an update with the other 5.
    const coreWrites = writes().filter((r) => r.operationId !== "checks/create" || (r.body as { name: string }).name.endsWith("core"));
    expect(coreWrites.map((r) => [r.operationId, (r.body as { output: { annotations?: unknown[] } }).output.annotations?.length])).toEqual([
      ["checks/create", 50],
      ["checks/update", 5],
    ]);
    // What the App reads back when the button is pressed.
    expect(parseCheckRunState(core!.output.text)).toEqual({ rpg: "rpg.json", subgraph: "core", pr: 2, failed: coreIds.slice(0, 55) });
  });

  it("writes nothing on a second publish of the same results, and never makes a second check run", async () => {
    await publishCheckRuns(input);
    const from = standIn.requests.length;
    expect(await publishCheckRuns(input)).toEqual(
      new Map([
        ["io", "unchanged"],
        ["core", "unchanged"],
      ]),
    );
    expect(writes(from)).toEqual([]);
    expect(standIn.checkRuns).toHaveLength(2);
  });

  it("updates its check run in place when the results change, adding the button and annotations it had none of", async () => {
    await publishCheckRuns(input);
    const from = standIn.requests.length;
    const changed = checkpointOf({ ...checkpoint.nodes, "io.write": failed("TypeError: write() takes 1 argument") });

    expect((await publishCheckRuns({ ...input, checkpoint: changed })).get("io")).toBe("updated");

    expect(standIn.checkRuns).toHaveLength(2);
    const io = standIn.checkRuns[0]!;
    expect([io.conclusion, io.output.title, io.actions.map((a) => a.identifier)]).toEqual([
      "failure",
      "1 of 2 nodes passed",
      ["retry-failed"],
    ]);
    expect(io.annotations.map((a) => [a.path, a.message])).toEqual([["src/pkg/io.py", "TypeError: write() takes 1 argument"]]);
    expect(writes(from).map((r) => r.operationId)).toEqual(["checks/update"]);
  });

  it("replaces a check run whose annotations would change, since GitHub only appends them, and the newest is the one found", async () => {
    await publishCheckRuns(input);
    const fixed = checkpointOf({ ...checkpoint.nodes, [coreIds[0]!]: passed });

    expect((await publishCheckRuns({ ...input, checkpoint: fixed })).get("core")).toBe("replaced");
    expect((await publishCheckRuns({ ...input, checkpoint: fixed })).get("core")).toBe("unchanged");

    const core = standIn.checkRuns.filter((r) => r.name === "rpg-forge / core");
    expect(core).toHaveLength(2);
    expect(core[1]!.annotations).toHaveLength(54);
    expect(core[1]!.output.title).toBe("6 of 60 nodes passed");
  });

  it("makes none for a pull request a person closed, or a subgraph whose branch was held", async () => {
    await publishCheckRuns({ ...input, prs: [pr("io", 1, { closed: true }), pr("core", 2)], heads: new Map([["io", SHA.io]]) });
    expect(standIn.checkRuns).toEqual([]);
    expect(standIn.requests).toEqual([]);
  });

  it("answers in GitHub's check-run shape, with the App that made it", async () => {
    await publishCheckRuns(input);
    const listed = await input.octokit.rest.checks.listForRef({ owner: "octo-org", repo: "stats", ref: SHA.core, app_id: APP.id });
    const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
    const spec = JSON.parse(await readFile(file, "utf8")) as { components: { schemas: Record<string, unknown> } };
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ $id: "gh", components: { schemas: spec.components.schemas } });
    const validate = ajv.getSchema("gh#/components/schemas/check-run")!;
    expect(listed.data.check_runs.map((r) => [validate(r), validate.errors])).toEqual([[true, null]]);
    expect(listed.data.check_runs[0]!.app).toMatchObject({ id: APP.id, slug: "rpg-forge" });
  });
});

describe("the check run's summary", () => {
  it("gives the subgraph's integration tests and its nodes' test strength, when it has them", () => {
    const render = { plan, checkpoint, subgraphId: "io", rpgPath: "rpg.json", dependencyPrs: [], baseBranch: "main", pullRequest: 2 };
    expect(renderCheckRun(render).summary).not.toContain("**Integration tests**");
    const measured = checkpointOf({
      "io.read": checkpointEntry("passed", { test_strength: { mutants: 3, killed: 2, survivors: [] } }),
      "io.write": passed,
    });
    measured.integration = {
      io: { status: "validated", entries: ["io.read"], exits: ["io.write"], total: 5, passed: 4, shipped: 4, failing: [], basis: "b" },
    };
    const summary = renderCheckRun({ ...render, checkpoint: measured }).summary;
    expect(summary).toContain("**Integration tests**: 4 of 5 (80%) passed, ✅ validated.");
    expect(summary).toContain("**Test strength**: the nodes' tests killed 2 of 3 mechanical mutants of their code (67%; decision 0022).");
  });
});

describe("the check run's state line", () => {
  it("leaves the failed list out when it would not fit, and no node id can end the hidden comment", () => {
    const many = checkpointOf(Object.fromEntries(coreIds.map((id) => [id, failed("x")])));
    const render = {
      plan,
      checkpoint: many,
      subgraphId: "core",
      rpgPath: "rpg.json",
      dependencyPrs: [],
      baseBranch: "main",
      pullRequest: 2,
    };
    expect(parseCheckRunState(renderCheckRun(render).text)?.failed).toHaveLength(60);

    const long = checkpointOf(Object.fromEntries(coreIds.map((id) => [id, failed("x")])));
    const hugePlan = { ...plan, subgraphs: plan.subgraphs.map((s) => (s.id === "core" ? { ...s, nodes: [...s.nodes, ...bigIds] } : s)) };
    for (const id of bigIds) long.nodes[id] = failed("x");
    const state = parseCheckRunState(renderCheckRun({ ...render, plan: hugePlan, checkpoint: long }).text);
    expect(state).toEqual({ rpg: "rpg.json", subgraph: "core", pr: 2 });

    const hostile = renderCheckRun({ ...render, rpgPath: "graphs/a-->b<c.json" }).text;
    expect(hostile.indexOf("-->")).toBe(hostile.length - 3);
    expect(parseCheckRunState(hostile)?.rpg).toBe("graphs/a-->b<c.json");
  });
});

/** Enough long node ids to pass the 60,000 characters the state line keeps for itself. */
const bigIds = Array.from({ length: 700 }, (_, i) => `core.${"very_long_node_name_".repeat(5)}${i}`);
