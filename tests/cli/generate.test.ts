import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/engine/checkpoint.js";
import { closedPortUrl, errorReply, startScriptedOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { runCli } from "../helpers/cli.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { createVenv } from "../helpers/python-venv.js";
import { copySharedExample, sharedExample } from "../helpers/shared-example.js";
import { EXAMPLE_STATS_PYTHON_FILES } from "../helpers/example-files.js";
import { packageSuiteIn } from "../helpers/package-suite.js";

const tempDir = useTempDirs();
const EXAMPLE = "examples/statkit/rpg.json";
// Runs whose point is the model's side (a refusal, a budget, a cassette's keys) pass --no-language-server: pyright's
// start costs about 1.8 s of CPU and nothing they check reads it. The example's generation, the live recording and the
// unreachable endpoint keep the default, a run with pyright.
const MODEL_ENV = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "RPG_FORGE_MODEL"] as const;
const saved = Object.fromEntries(MODEL_ENV.map((k) => [k, process.env[k]]));
let fake: FakeOpenAi | undefined;

afterEach(async () => {
  for (const k of MODEL_ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await fake?.close();
  fake = undefined;
});

function useModelEnv(env: Partial<Record<(typeof MODEL_ENV)[number], string>>): void {
  for (const k of MODEL_ENV) delete process.env[k];
  Object.assign(process.env, env);
}

describe("rpg-forge generate: bad input stops before any work, exit 2", () => {
  it("names OPENAI_API_KEY and OPENAI_BASE_URL when no model is configured", async () => {
    useModelEnv({});
    const out = join(tempDir(), "out");
    const result = await runCli("generate", EXAMPLE, "--out", out);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^MODEL_NOT_CONFIGURED /m);
    expect(result.err).toContain("OPENAI_API_KEY");
    expect(result.err).toContain("OPENAI_BASE_URL");
    expect(result.err).toContain("--replay");
    expect(existsSync(out)).toBe(false);
  });

  it("names the line of a cassette that is not JSON lines", async () => {
    const cassette = join(tempDir(), "bad.jsonl");
    writeFileSync(cassette, `${readFileSync("examples/statkit/cassette.jsonl", "utf8").split("\n")[0]}\n{ not json\n`);
    const result = await runCli("generate", EXAMPLE, "--out", join(tempDir(), "out"), "--replay", cassette);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^CASSETTE_INVALID: line 2 is not valid JSON/m);
  });

  it("refuses an output that is a file", async () => {
    const file = join(tempDir(), "taken");
    writeFileSync(file, "");
    const result = await runCli("generate", EXAMPLE, "--out", file, "--replay", "examples/statkit/cassette.jsonl");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^OUTPUT_NOT_DIRECTORY: /m);
  });

  it("refuses an output that cannot be written", async () => {
    const result = await runCli("generate", EXAMPLE, "--out", "/sys/rpg-forge-out", "--replay", "examples/statkit/cassette.jsonl");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^OUTPUT_NOT_WRITABLE: cannot write to the output \/sys\/rpg-forge-out/m);
  });

  it("fails a node whose prompt is over the token budget instead of sending it", async () => {
    const dir = tempDir();
    const rpg = join(dir, "rpg.json");
    const docstring = `Return x.\n\n${"A very long specification. ".repeat(4000)}`;
    writeFileSync(
      rpg,
      JSON.stringify({
        nodes: [{ id: "big", name: "big", type: "function", node_type: "leaf", file_path: "src/b/big.py", docstring, subgraph_id: "b" }],
      }),
    );
    fake = await startScriptedOpenAi([]);
    useModelEnv({ OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "k" });
    const result = await runCli("generate", rpg, "--out", join(dir, "out"), "--no-language-server");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/✗ big failed .*the tests prompt needs about \d+ tokens, over the budget of 24000/);
    expect(fake.requests).toEqual([]);
  });

  it("exits 2 on an invalid RPG with its problems and writes nothing", async () => {
    const rpg = join(tempDir(), "rpg.json");
    writeFileSync(rpg, '{"nodes": []}');
    const out = join(tempDir(), "out");
    const result = await runCli("generate", rpg, "--out", out, "--replay", "examples/statkit/cassette.jsonl");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^RPG_EMPTY /m);
    expect(existsSync(out)).toBe(false);
  });

  it("stops on an unreachable endpoint with a readable checkpoint", async () => {
    useModelEnv({ OPENAI_BASE_URL: await closedPortUrl(), OPENAI_API_KEY: "k" });
    const out = join(tempDir(), "out");
    const result = await runCli("generate", EXAMPLE, "--out", out);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^MODEL_UNREACHABLE: /m);
    const checkpoint = JSON.parse(readFileSync(join(out, "docs/generation_checkpoint.json"), "utf8"));
    expect(Object.values(checkpoint.nodes).filter((e) => (e as { status: string }).status === "in_progress")).toHaveLength(1);
  });

  it("stops on a 401 without printing the key, and resumes the same node later", async () => {
    fake = await startScriptedOpenAi([errorReply(401, "Incorrect API key provided: sk-test-secret-key")]);
    useModelEnv({ OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-test-secret-key" });
    const out = join(tempDir(), "out");
    const result = await runCli("generate", EXAMPLE, "--out", out, "--no-language-server");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^MODEL_AUTH: /m);
    expect(result.err).not.toContain("sk-test-secret-key");
    const again = await runCli("generate", EXAMPLE, "--out", out, "--replay", "examples/statkit/cassette.jsonl");
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/^CHECKPOINT_EXISTS: /m);
    expect(again.err).toContain("--resume");
  });

  it("rejects --resume with --fresh, and a bad --max-iterations", async () => {
    expect((await runCli("generate", EXAMPLE, "--out", tempDir(), "--resume", "--fresh")).code).toBe(2);
    const bad = await runCli("generate", EXAMPLE, "--out", tempDir(), "--max-iterations", "0");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("at least 1");
  });
});

describe("rpg-forge generate on the shipped example, offline", () => {
  it("generates the package from the cassette: a line per node, the report, and tests that pass", async () => {
    // Generated once per test run, strictly (every prompt matches the recording byte for byte, by hash, so
    // the prompts, failure briefs included, are deterministic and the cassette is current), with a branch per
    // subgraph: tests/helpers/example-setup.ts. pytest and pip write into the package, so this test works on a copy.
    const result = await sharedExample();
    const root = tempDir();
    const out = copySharedExample(result, join(root, "statkit"));
    expect(result.code).toBe(1);
    // The run's own report (run id, timings, history) is the run's; the committed one describes the package.
    const reportPath = join(result.dir, ".rpg-forge/runs", /runs\/([^/]+)\//.exec(result.out)?.[1] ?? "?", "generation_report.md");
    expect(result.out).toBe(`11 passed, 1 failed, 2 skipped of 14 nodes; report: ${reportPath}; branch rpg-forge/statkit\n`);
    expect(readFileSync(reportPath, "utf8")).toContain("## Git History");
    expect(readFileSync(join(out, "docs/generation_report.md"), "utf8")).not.toContain("## Git History");
    const lines = result.err.split("\n");
    expect(lines.filter((l) => /^\[\s*\d+\/14\] [✓✗-] /.test(l))).toHaveLength(14);
    expect(result.err).toContain("✓ stats.median passed (1 fix,");
    expect(result.err).toContain("✗ report.format_number failed after 8 debug iterations");
    expect(result.err).toContain("- report.describe_text skipped: blocked by report.format_number");
    expect(result.err).toMatch(/^Completed 10\/14 nodes \(71%\), ETA /m);
    // Integration tests for the two subgraphs whose nodes all passed; the one that failed is left out of what ships.
    expect(result.err).toContain("✓ Integration tests of subgraph stats: 4 of 5 passed (80%), validated, 4 shipped\n");
    expect(result.err).toContain("✓ Integration tests of subgraph validation: 4 of 4 passed (100%), validated, 4 shipped\n");
    expect(readFileSync(join(out, "tests/integration/test_stats.py"), "utf8")).not.toContain("sample_deviation");
    // The language server is on by default where pyright resolves, and checked the code against the plan.
    expect(result.err).toContain(
      "✓ Dependency check by pyright-langserver: 12 of 12 planned dependencies found in the code (100%; target 80%)\n",
    );
    expect(result.err.match(/Dependency check by/g)).toHaveLength(1);
    // The median's fix looked around with tools first (decision 0030): recorded in the cassette, run again on replay.
    const median = join(dirname(reportPath), "stats.median");
    const toolCalls = readdirSync(median).find((step) => step.endsWith("-tool-calls-1"));
    expect(toolCalls, readdirSync(median).join(", ")).toBeDefined();
    const asked = JSON.parse(readFileSync(join(median, toolCalls!, "queries.json"), "utf8")) as { tool: string; results: string[] }[];
    expect(asked.map((q) => q.tool)).toEqual(["view_code", "search_rpg"]);
    expect(asked[0]!.results.join("\n")).toContain("ensure_numbers");
    // The failed node left nothing behind; its dependents were never written.
    expect(readdirSync(join(out, "src/statkit/report")).sort()).toEqual(["__init__.py", "summary.py"]);
    expect(readFileSync(join(out, "src/statkit/report/summary.py"), "utf8")).not.toContain("format_summary");
    expect(readFileSync(join(out, "docs/generation_report.md"), "utf8")).toContain("### `report.format_number`: `format_number`");
    const suite = packageSuiteIn("python3", out);
    expect(suite.output).toMatch(/\b62 passed\b/);
    expect(suite.code).toBe(0);

    // A real package: pip installs it into a virtual environment, and it imports from anywhere.
    // Offline (no build isolation) it needs a python3 from PATH whose own site has setuptools and wheel.
    const venv = createVenv(join(root, "venv"));
    const pip = venv.install(out);
    expect(pip.stderr).toBe("");
    expect(pip.status).toBe(0);
    const use = spawnSync(venv.python, ["-c", "import statkit, statkit.stats as s; print(statkit.__all__, s.median([3, 1, 2]))"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(use.stdout).toBe(
      "['ensure_numbers', 'mean', 'median', 'mode', 'parse_number', 'parse_numbers', 'percentile', 'std_dev', 'summarize', 'variance', 'z_scores'] 2.0\n",
    );
    // The planned API from the top-level package, its version and docstring from the RPG's metadata
    // (python3 from PATH, the package from the src layout).
    const api = spawnSync(
      "python3",
      ["-c", "import statkit; print(statkit.mean([1, 2, 3]), statkit.__version__, statkit.__doc__, sep='|')"],
      { cwd: root, encoding: "utf8", env: { ...process.env, PYTHONPATH: join(out, "src") } },
    );
    expect(api.stderr).toBe("");
    expect(api.stdout).toBe("2.0|0.1.0|Small descriptive statistics for lists of numbers, with parsing and plain-text reports.\n");
    const installed = venv.pytest(out, root);
    expect(installed.stdout).toMatch(/\b62 passed\b/);

    expect(readFileSync(join(out, "pyproject.toml"), "utf8")).toContain('name = "statkit"');
    expect(readFileSync(join(out, "README.md"), "utf8")).toContain(">>> from statkit.stats.descriptive import median");
    expect(readFileSync(join(out, "test_results.xml"), "utf8")).toMatch(/<testsuite[^>]* tests="62"/);
    const exported = JSON.parse(readFileSync(join(out, "docs/rpg.json"), "utf8")) as { nodes: { id: string; status: string }[] };
    expect(exported.nodes.find((n) => n.id === "report.format_number")!.status).toBe("failed");

    // Its history, read with git itself: a commit and a tag per subgraph in wave order, each
    // the package as it stands then; nothing of the failed node in any commit; a clean work tree.
    const git = (...args: string[]): string => spawnSync("git", args, { cwd: out, encoding: "utf8" }).stdout.trim();
    expect(git("branch", "--show-current")).toBe("rpg-forge/statkit");
    expect(git("log", "--format=%s").split("\n")).toEqual([
      "feat: complete Reports (nodes report.format_number-report.describe_text)",
      "feat: complete Statistics (nodes stats.mean-stats.z_scores)",
      "feat: complete Input validation (nodes validation.ensure_numbers-validation.parse_numbers)",
      "chore: start rpg-forge run",
    ]);
    const tags = git("tag", "--list", "rpg/*").split("\n");
    expect(tags.map((t) => t.replace(/^rpg\/[^/]+\//, "")).sort()).toEqual(["report", "stats", "validation"]);
    const statsTag = tags.find((t) => t.endsWith("/stats"))!;
    const statsCommit = [
      "README.md",
      "docs/generation_checkpoint.json",
      "docs/generation_report.md",
      "docs/rpg.json",
      ...EXAMPLE_STATS_PYTHON_FILES,
    ];
    expect(git("show", "--name-only", "--format=", statsTag).split("\n").sort()).toEqual(statsCommit);
    // A true snapshot: its checkpoint and report know nothing yet of the Reports subgraph.
    const statsCheckpoint = JSON.parse(git("show", `${statsTag}:docs/generation_checkpoint.json`)) as Checkpoint;
    expect(statsCheckpoint.nodes["report.summarize"]!.status).toBe("pending");
    expect(statsCheckpoint.nodes["stats.median"]!.status).toBe("passed");
    expect(git("show", `${statsTag}:docs/generation_report.md`)).toContain("- **Not Yet Generated**: 4");
    expect(git("log", "--all", "--format=", "--name-only")).not.toContain("report/format.py");
    // One branch per subgraph, stacked in the merge order: stats adds only its own files to validation.
    expect(git("branch", "--list", "rpg/*", "--format=%(refname:short)").split("\n")).toEqual([
      "rpg/statkit/report",
      "rpg/statkit/stats",
      "rpg/statkit/validation",
    ]);
    expect(git("diff", "--name-only", "rpg/statkit/validation", "rpg/statkit/stats").split("\n")).toEqual(statsCommit);
    expect(git("rev-parse", "rpg/statkit/stats^")).toBe(git("rev-parse", "rpg/statkit/validation"));
    expect(git("rev-parse", "rpg/statkit/report^")).toBe(git("rev-parse", "rpg/statkit/stats"));
    expect(git("diff", "rpg/statkit/report", "rpg-forge/statkit")).toBe("");
    expect(git("status", "--porcelain")).toBe("");
  }, 300_000);
});

describe("rpg-forge generate --record, --replay and --replay-strict", () => {
  const node = (docstring: string) => ({
    nodes: [
      {
        id: "twice",
        name: "twice",
        type: "function",
        node_type: "leaf",
        file_path: "src/mini/twice.py",
        docstring,
        dependencies: [],
        subgraph_id: "mini",
      },
    ],
  });
  const replies = [
    {
      content: JSON.stringify({ test_code: "from mini.twice import twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n", notes: "" }),
    },
    { content: JSON.stringify({ imports: [], code: "def twice(x):\n    return 2 * x\n", notes: "" }) },
  ];

  it("records a live run as a cassette that replays offline, strictly too, until a prompt changes", async () => {
    const dir = tempDir();
    const rpg = join(dir, "rpg.json");
    const cassette = join(dir, "run.jsonl");
    writeFileSync(rpg, JSON.stringify(node("Return twice x.")));
    fake = await startScriptedOpenAi(replies);
    useModelEnv({ OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "k" });
    expect((await runCli("generate", rpg, "--out", join(dir, "live"), "--record", cassette)).code).toBe(0);
    const lines = readFileSync(cassette, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { key: object });
    expect(lines.map((l) => l.key)).toEqual([
      { node_id: "twice", kind: "tests", attempt: 1 },
      { node_id: "twice", kind: "implementation", attempt: 1 },
      // The subgraph's integration tests: the fake server has no reply for them, and a refusal is recorded too.
      { node_id: "mini", kind: "integration_tests", attempt: 1 },
      { node_id: "mini", kind: "integration_tests", attempt: 2 },
    ]);

    useModelEnv({});
    const replayed = await runCli(
      "generate",
      rpg,
      "--out",
      join(dir, "replayed"),
      "--replay",
      cassette,
      "--replay-strict",
      "--no-language-server",
    );
    expect(replayed.code).toBe(0);
    expect(replayed.err).toContain("Dependency check by Python's parser");
    expect(readFileSync(join(dir, "replayed/src/mini/twice.py"), "utf8")).toBe(readFileSync(join(dir, "live/src/mini/twice.py"), "utf8"));

    writeFileSync(rpg, JSON.stringify(node("Return x doubled.")));
    expect((await runCli("generate", rpg, "--out", join(dir, "loose"), "--replay", cassette, "--no-language-server")).code).toBe(0);
    const strict = await runCli(
      "generate",
      rpg,
      "--out",
      join(dir, "strict"),
      "--replay",
      cassette,
      "--replay-strict",
      "--no-language-server",
    );
    expect(strict.code).toBe(1);
    expect(strict.err).toContain(
      "✗ twice failed after 0 debug iterations: prompt changed since the cassette was recorded for node twice, kind tests, attempt 1",
    );
  }, 120_000);

  it("fails only the node whose reply the cassette lacks, naming the key", async () => {
    const dir = tempDir();
    const rpg = join(dir, "rpg.json");
    const cassette = join(dir, "partial.jsonl");
    writeFileSync(rpg, JSON.stringify(node("Return twice x.")));
    writeFileSync(
      cassette,
      `${JSON.stringify({ key: { node_id: "twice", kind: "tests", attempt: 1 }, prompt_sha256: "0".repeat(64), response: { content: replies[0]!.content } })}\n`,
    );
    const result = await runCli("generate", rpg, "--out", join(dir, "out"), "--replay", cassette, "--no-language-server");
    expect(result.code).toBe(1);
    expect(result.err).toContain("cassette has no reply for node twice, kind implementation, attempt 1");
    expect(existsSync(join(dir, "out/src/mini/twice.py"))).toBe(false);
  }, 120_000);
});
