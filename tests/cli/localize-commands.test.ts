import { cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { runCli, spawnCli } from "../helpers/cli.js";
import { closedPortUrl, errorReply, startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { sharedExample } from "../helpers/shared-example.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { conceptVector } from "../localize/embedding-vectors.js";

const RPG = "tests/fixtures/localize/stats-rpg.json";
const tempDir = useTempDirs();

// Offline unless a test points the CLI at the fake endpoint: a developer's own key must not reach these tests.
beforeEach(() => {
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
  vi.stubEnv("RPG_FORGE_EMBEDDING_MODEL", "");
});
const servers: FakeOpenAi[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Every file under `dir` with its size and modification time: what "writes nothing" is checked against. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[relative(dir, path)] = `${statSync(path).size}@${statSync(path).mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

describe("rpg-forge search", () => {
  it('ranks offline without an endpoint: calculate_mean first for "calculate mean"', async () => {
    const result = await runCli("search", RPG, "calculate mean");
    expect(result).toMatchObject({ code: 0, err: "" });
    const lines = result.out.split("\n");
    expect(lines[0]).toBe('Search "calculate mean" in all subgraphs, ranked by BM25, offline: 3 matches');
    expect(lines[1]).toMatch(/^ 1\. stats\.calculate_mean\s+\d+\.\d{4}\s+\[stats\] src\/stats_kit\/descriptive\.py$/);
    expect(result.out).toContain("matched: calculate, mean");
  });

  it("prints JSON with --json and searches one subgraph with --subgraph", async () => {
    const result = await runCli("search", RPG, "comma separated numbers", "--subgraph", "stats", "--json");
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.out) as { scope: unknown; ranking: string; hits: { subgraphId: string }[] };
    expect(parsed).toMatchObject({ scope: { subgraph: "stats" }, ranking: "bm25" });
    expect(parsed.hits.length).toBeGreaterThan(0);
    expect(parsed.hits.every((h) => h.subgraphId === "stats")).toBe(true);
  });

  it('finds calculate_mean for "average" with embeddings from the configured endpoint', async () => {
    const server = await startFakeOpenAi(() => errorReply(400, "chat is not used"), { embeddings: (input) => input.map(conceptVector) });
    servers.push(server);
    vi.stubEnv("OPENAI_BASE_URL", server.url);
    vi.stubEnv("RPG_FORGE_EMBEDDING_MODEL", "embed-test");
    const result = await runCli("search", RPG, "average", "--json");
    expect(result).toMatchObject({ code: 0, err: "" });
    const parsed = JSON.parse(result.out) as { ranking: string; model: string; hits: { id: string }[] };
    expect(parsed).toMatchObject({ ranking: "embeddings", model: "embed-test" });
    expect(parsed.hits[0]?.id).toBe("stats.calculate_mean");

    const offline = await runCli("search", RPG, "average", "--offline");
    expect(offline.out).toContain("ranked by BM25, offline: 0 matches");
    expect(server.requests).toHaveLength(2);
  });

  it("warns and ranks offline when the endpoint cannot be reached", async () => {
    vi.stubEnv("OPENAI_BASE_URL", await closedPortUrl());
    const result = await runCli("search", RPG, "calculate mean");
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/^warning: embeddings unavailable, ranked offline: could not connect to the model endpoint/);
    expect(result.out).toContain("1. stats.calculate_mean");
  }, 30_000);

  it("exits 2 naming the file for an unknown subgraph, an invalid RPG, or --all with --subgraph", async () => {
    const unknown = await runCli("search", RPG, "mean", "--subgraph", "stat");
    expect(unknown).toMatchObject({ code: 2, out: "" });
    expect(unknown.err).toContain(
      `LOCALIZE_UNKNOWN_SUBGRAPH - subgraph_id: no subgraph "stat" in the RPG; it has report, stats, validation (${RPG})`,
    );

    const missing = await runCli("search", join(tempDir(), "nope.json"), "mean");
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^RPG_UNREADABLE: cannot read the RPG: no such file/);

    const both = await runCli("search", RPG, "mean", "--all", "--subgraph", "stats");
    expect(both.code).toBe(2);
    expect(both.err).toContain("cannot be used with option");
  });
});

describe("rpg-forge deps", () => {
  it("prints the two-hop neighbourhood as an ASCII tree", async () => {
    const result = await runCli("deps", RPG, "stats.standard_deviation");
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out).toBe(
      [
        "stats.standard_deviation (standard_deviation)  [stats, src/stats_kit/descriptive.py]",
        "|-- depends on (1)",
        "|   `-- stats.calculate_mean (calculate_mean)",
        "|       `-- depends on validation.validate_input (validate_input)",
        "`-- needed by (1)",
        "    `-- report.format_report (format_report)",
        "",
      ].join("\n"),
    );
  });

  it("prints JSON with --json, failed nodes marked from the RPG's statuses", async () => {
    const example = await sharedExample();
    const result = await runCli("deps", join(example.dir, "docs", "rpg.json"), "report.summarize", "--json");
    expect(result.code).toBe(0);
    const view = JSON.parse(result.out) as { node: { id: string; status: string }; dependents: { id: string; status: string }[] };
    expect(view.node).toMatchObject({ id: "report.summarize", status: "passed" });
    expect(view.dependents).toEqual([expect.objectContaining({ id: "report.describe_text", status: "skipped" })]);
    const tree = await runCli("deps", join(example.dir, "docs", "rpg.json"), "report.format_summary");
    expect(tree.out).toContain("report.format_number (format_number) [FAILED]");
    expect(tree.out).toContain("FAILED within two hops (may be the root cause): report.format_number");
  }, 600_000);

  it("exits 2 naming the file and the id for an unknown node", async () => {
    const result = await runCli("deps", RPG, "stats.nope");
    expect(result).toMatchObject({ code: 2, out: "" });
    expect(result.err.split("\n")[0]).toBe(`LOCALIZE_UNKNOWN_NODE stats.nope -: no node "stats.nope" in the RPG (${RPG})`);
  });
});

describe("rpg-forge view", () => {
  let dir: string;
  beforeAll(async () => {
    dir = (await sharedExample()).dir;
  }, 600_000);

  it("shows a node's code from the generated package, its RPG found in docs/rpg.json", async () => {
    const result = await runCli("view", dir, "stats.mean");
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out.split("\n")[0]).toMatch(
      /^# src\/statkit\/stats\/descriptive\.py mean \(node stats\.mean, passed\): lines \d+-\d+ of \d+$/,
    );
    expect(result.out).toMatch(/\d+ \| def mean\(values: list\[float\]\) -> float:\n/);
  });

  it("outlines a file with --outline", async () => {
    const result = await runCli("view", dir, "src/statkit/stats/spread.py", "--outline");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^# src\/statkit\/stats\/spread\.py: outline, \d+ lines/);
    expect(result.out).toMatch(/\d+ {2}def variance\(values: list\[float\], sample: bool = False\) -> float: {2}# Variance of the values/);
  });

  it('says "not yet generated" for the failed node, and exits 0', async () => {
    const result = await runCli("view", dir, "report.format_number");
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      "src/statkit/report/format.py (node report.format_number, failed): not yet generated: src/statkit/report/format.py does not exist (status: failed)\n",
    );
  });

  it("exits 2 for a missing file, a path outside the repository, an unknown node or a missing RPG", async () => {
    const missing = await runCli("view", dir, "src/statkit/nope.py");
    expect(missing.code).toBe(2);
    expect(missing.err.split("\n")[0]).toBe(`INPUT_NOT_FOUND: no such file in ${dir} (src/statkit/nope.py)`);

    const outside = await runCli("view", dir, "../elsewhere.py");
    expect(outside.code).toBe(2);
    expect(outside.err).toMatch(/^LOCALIZE_PATH_REFUSED: refused to read "\.\.\/elsewhere\.py": it is outside the repository/);

    const unknown = await runCli("view", dir, "stats.nope");
    expect(unknown.code).toBe(2);
    expect(unknown.err.split("\n")[0]).toBe(
      `LOCALIZE_UNKNOWN_NODE stats.nope -: no node "stats.nope" in the RPG (${join(dir, "docs", "rpg.json")})`,
    );

    const bare = tempDir();
    const noRpg = await runCli("view", bare, "stats.mean");
    expect(noRpg.code).toBe(2);
    expect(noRpg.err).toContain(
      `INPUT_NOT_FOUND: "stats.mean" is not a .py file, and a node id needs the RPG, which is not at ${join(bare, "docs", "rpg.json")}`,
    );
    expect(noRpg.err).toContain("hint: pass --rpg <rpg.json>");
  });

  it("views by node id with --rpg in a folder that has no docs/rpg.json", async () => {
    const repo = tempDir();
    mkdirSync(join(repo, "src", "stats_kit"), { recursive: true });
    writeFileSync(
      join(repo, "src", "stats_kit", "descriptive.py"),
      "def calculate_mean(numbers: list[float]) -> float:\n    return sum(numbers) / len(numbers)\n",
    );
    const result = await runCli("view", repo, "stats.calculate_mean", "--rpg", RPG);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out).toBe(
      [
        "# src/stats_kit/descriptive.py calculate_mean (node stats.calculate_mean): lines 1-2 of 2",
        "1 | def calculate_mean(numbers: list[float]) -> float:",
        "2 |     return sum(numbers) / len(numbers)",
        "",
      ].join("\n"),
    );
    const notYet = await runCli("view", repo, "stats.count_values", "--rpg", RPG);
    expect(notYet.out).toContain("not yet generated: src/stats_kit/descriptive.py defines no count_values");
  });

  it("search, deps and view write nothing, not even in the package they read", async () => {
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true, verbatimSymlinks: true });
    const before = snapshot(copy);
    const rpg = join(copy, "docs", "rpg.json");
    expect((await runCli("search", rpg, "mean")).code).toBe(0);
    expect((await runCli("deps", rpg, "stats.mean")).code).toBe(0);
    expect((await runCli("view", copy, "stats.mean")).code).toBe(0);
    expect((await runCli("view", copy, "src/statkit/stats/spread.py", "--outline")).code).toBe(0);
    expect(snapshot(copy)).toEqual(before);
  });

  it("runs as a real process and exits", () => {
    const result = spawnCli(["view", dir, "src/statkit/stats/spread.py", "--symbol", "std_dev"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^# src\/statkit\/stats\/spread\.py std_dev: lines \d+-\d+ of \d+\n\d+ \| def std_dev\(/);
  });
});
