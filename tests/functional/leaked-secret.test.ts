import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, type GenerateResult } from "../../src/engine/generate.js";
import { publishSubgraphs } from "../../src/github/publish.js";
import { createOpenAiProvider } from "../../src/llm/openai-provider.js";
import { buildPlan, type Plan } from "../../src/plan/plan.js";
import { committedReport } from "../../src/report/generation-report.js";
import { renderFailedNodeComment } from "../../src/report/pull-request.js";
import { writeRunReport } from "../../src/report/run-report.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { startGitHubStandIn, type GitHubStandIn } from "../helpers/github-stand-in.js";
import { rpgDoc, text } from "../helpers/rpg.js";

/**
 * Generated code that finds a secret of rpg-forge's (here: named in its own
 * environment, as OPENAI_API_KEY or GITHUB_TOKEN are) and prints it, in a node that
 * fails: the value must not reach anything rpg-forge writes or posts.
 */
const NAME = "RPG_FORGE_E2E_SECRET_TOKEN";
const SECRET = randomBytes(18).toString("base64url"); // 24 characters
const REDACTED = `[redacted ${NAME}]`;
// The implementation holds the value encoded, so it reaches the output only by running: as stolen data would.
const hidden = Buffer.from([...SECRET].reverse().join("")).toString("hex");

const replies: Record<string, Record<string, unknown>> = {
  one: {
    tests: { test_code: "from mini.one import one\n\n\ndef test_one():\n    assert one() == 1\n", notes: "" },
    implementation: { imports: [], code: "def one():\n    return 1\n", notes: "" },
  },
  leak: {
    // The test quotes the value literally, as code that read it from a file it may read would.
    tests: {
      test_code: `from mini.leak import leak\n\n\ndef test_leak():\n    print("the test found ${SECRET}")\n    assert leak() == 2\n`,
      notes: "",
    },
    implementation: { imports: [], code: stealing("def leak():"), notes: "" },
    fix: { imports: [], code: stealing("def leak():"), explanation: `still ${SECRET}` },
    diagnosis: { verdict: "implementation_bug", reason: "wrong" },
  },
};

function stealing(signature: string): string {
  return [
    signature,
    `    found = bytes.fromhex("${hidden}").decode()[::-1]`,
    `    print("stolen:", found)`,
    `    import sys`,
    `    sys.stderr.write("stolen: " + found + "\\n")`,
    `    raise ValueError("leaked " + found)`,
    "",
  ].join("\n");
}

const KINDS: Record<string, string> = {
  rpg_forge_tests: "tests",
  rpg_forge_implementation: "implementation",
  rpg_forge_fix: "fix",
  rpg_forge_diagnosis: "diagnosis",
};

let fake: FakeOpenAi;
let out: string;
let plan: Plan;
let result: GenerateResult;
let reportPath: string;

beforeAll(async () => {
  fake = await startFakeOpenAi((body) => {
    const messages = body.messages as { content: string }[];
    const node = /"id": "([^"]+)"/.exec(messages[1]!.content)![1]!;
    const kind = KINDS[(body.response_format as { json_schema: { name: string } }).json_schema.name]!;
    const reply = replies[node]?.[kind];
    if (!reply) return { status: 400, body: { error: { message: `no reply for ${node} ${kind}`, type: "invalid_request_error" } } };
    return { content: JSON.stringify(reply) };
  });
  process.env[NAME] = SECRET;
  out = mkdtempSync(join(tmpdir(), "rpg-forge-secret-"));
  const node = (id: string) => ({
    id,
    name: id,
    type: "function",
    node_type: "leaf",
    file_path: `src/mini/${id}.py`,
    signature: `def ${id}()`,
    docstring: `Return ${id === "one" ? 1 : 2}.`,
    dependencies: [],
    subgraph_id: "mini",
  });
  const loaded = parseRpgText(text(rpgDoc([node("one"), node("leak")])), "rpg.json");
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  plan = buildPlan(loaded.value);
  result = await generate({
    rpg: loaded.value,
    rpgPath: "rpg.json",
    rpgSha256: "0123456789",
    outDir: out,
    provider: createOpenAiProvider({ apiKey: "test-key", baseURL: fake.url, model: "fake-model", maxRetries: 0 }),
    model: "fake-model",
    mode: "new",
    maxIterations: 1,
    perTestTimeoutMs: 5000,
    branchPerSubgraph: true,
    renderCommittedReport: committedReport,
  });
  // As every edge does: the run's own report, from the result.
  ({ path: reportPath } = await writeRunReport(out, { ...result, rpgPath: "rpg.json", model: "fake-model" }));
}, 180_000);

afterAll(async () => {
  delete process.env[NAME];
  await fake?.close();
  rmSync(out, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("a secret that generated code prints", () => {
  it("did leave the sandbox: the node failed on it and its output shows where it was cut", () => {
    expect(result.checkpoint.nodes.leak).toMatchObject({ status: "failed" });
    expect(result.checkpoint.nodes.one).toMatchObject({ status: "passed" });
    const context = result.checkpoint.nodes.leak!.failure_context!;
    expect(context.output).toContain(`stolen: ${REDACTED}`);
    expect(context.failingTests.map((t) => t.message).join("\n")).toContain(`leaked ${REDACTED}`);
  });

  it("is in no file under the output: checkpoint, artifacts, report, package", () => {
    const files = filesUnder(out);
    expect(files).toContain(result.checkpointPath);
    expect(files).toContain(reportPath);
    expect(files).toContain(join(out, "docs/generation_report.md"));
    const artifacts = files.filter((f) => f.includes("/.rpg-forge/runs/"));
    expect(artifacts.some((f) => f.endsWith("pytest-output.txt"))).toBe(true);
    expect(artifacts.some((f) => readFileSync(f, "utf8").includes(REDACTED))).toBe(true);
    expect(files.filter((f) => readFileSync(f).includes(SECRET))).toEqual([]);
  });

  it("is in no commit of the output's history", () => {
    const history = spawnSync("git", ["log", "--all", "-p", "--format=%H %s%n%b"], { cwd: out, encoding: "utf8" });
    expect(history.status).toBe(0);
    expect(history.stdout).toContain("generation_checkpoint.json");
    expect(history.stdout).not.toContain(SECRET);
  });

  it("is not in the failed node's comment, as rendered from the run's checkpoint or as GitHub receives it", async () => {
    const render = {
      plan,
      checkpoint: result.checkpoint,
      subgraphId: "mini",
      rpgPath: "rpg.json",
      dependencyPrs: [],
      baseBranch: "main",
    };
    const comment = renderFailedNodeComment(render, "leak", "gh workflow run retry");
    expect(comment).toContain(REDACTED);
    expect(comment).not.toContain(SECRET);

    const standIn: GitHubStandIn = await startGitHubStandIn();
    try {
      await publishSubgraphs({
        octokit: new Octokit({ auth: "test-token", baseUrl: standIn.url }),
        repository: { owner: standIn.owner, repo: standIn.repo },
        plan,
        checkpoint: result.checkpoint,
        rpgPath: "rpg.json",
        model: "fake-model",
        baseBranch: "main",
        branches: new Map([["mini", "rpg/rpg/mini"]]),
        retryCommand: () => "gh workflow run retry",
      });
      const failedComment = standIn.comments.find((c) => c.body.includes("Node `leak` failed"));
      expect(failedComment?.body).toContain(REDACTED);
      expect(JSON.stringify(standIn.requests.map((r) => r.body))).not.toContain(SECRET);
    } finally {
      await standIn.close();
    }
  });
});
