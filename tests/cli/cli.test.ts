import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, spawnCli } from "../helpers/cli.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { writeCheckpoint } from "../../src/engine/checkpoint.js";
import { checkpointEntry, checkpointOf } from "../helpers/checkpoint.js";

const tempDir = useTempDirs();

function file(name: string, content: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
}

const EXAMPLE = "examples/statkit/rpg.json";

describe("rpg-forge validate", () => {
  it("exits 0 for a valid graph", async () => {
    const result = await runCli("validate", EXAMPLE);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out).toBe(`${EXAMPLE}: valid (14 nodes, 3 edges, 3 subgraphs)\n`);
  });

  it("exits 2 with one `CODE node-id field: message` line per problem", async () => {
    const path = file("rpg.json", text(rpgDoc([leaf({ id: "a", file: "../evil.py" }), leaf({ id: "b", deps: ["ghost"] })])));
    const result = await runCli("validate", path);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err.trim().split("\n")).toEqual([
      `RPG_PATH_TRAVERSAL a file_path: "../evil.py" contains "..", which could leave the package (${path}:8:7)`,
      `RPG_DANGLING_REFERENCE b dependencies[0]: depends on "ghost", which is not a node of the graph (${path}:21:9)`,
      `${path}: 2 problems; nothing was generated`,
    ]);
  });

  it("prints warnings without failing", async () => {
    const path = file("rpg.json", text(rpgDoc([leaf({ id: "a", colour: "red" })])));
    const result = await runCli("validate", path);
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/^warning: RPG_UNKNOWN_FIELD a colour: unknown key "colour"/);
  });

  it("prints the problems as JSON with --json", async () => {
    const path = file("rpg.json", "{]");
    const result = await runCli("validate", path, "--json");
    expect(result.code).toBe(2);
    expect(JSON.parse(result.out)).toEqual([
      expect.objectContaining({ code: "RPG_JSON_SYNTAX", severity: "error", at: expect.objectContaining({ line: 1, column: 2 }) }),
    ]);
  });

  it("names a file that does not exist", async () => {
    const result = await runCli("validate", "no/such/rpg.json");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^RPG_UNREADABLE: /);
    expect(result.err).toContain("no/such/rpg.json");
    expect(result.err).toContain("no such file");
  });
});

describe("rpg-forge plan", () => {
  it("prints the order, levels and subgraphs", async () => {
    const result = await runCli("plan", EXAMPLE);
    expect(result.code).toBe(0);
    expect(result.out).toContain("14 nodes in 6 levels, 3 subgraphs; critical path 6 nodes");
    expect(result.out).toMatch(/ {3}1\. report\.format_number +format_number {2}\[report, level 0\]/);
    expect(result.out).toContain("wave 0  validation (Input validation): 3 nodes, needs nothing");
  });

  it("prints the plan as JSON whose `order` is the generation order", async () => {
    const result = await runCli("plan", EXAMPLE, "--json");
    const plan = JSON.parse(result.out) as {
      order: string[];
      levels: string[][];
      critical_path_length: number;
      subgraphs: { id: string }[];
    };
    expect(plan.order).toHaveLength(14);
    expect(plan.order.indexOf("validation.ensure_numbers")).toBeLessThan(plan.order.indexOf("stats.mean"));
    expect(plan.levels.flat().sort()).toEqual([...plan.order].sort());
    expect(plan.critical_path_length).toBe(6);
    expect(plan.subgraphs.map((s) => s.id)).toEqual(["validation", "stats", "report"]);
  });

  it("prints a Mermaid flowchart grouped by subgraph", async () => {
    const result = await runCli("plan", EXAMPLE, "--mermaid");
    expect(result.out.startsWith("flowchart TD\n")).toBe(true);
    expect(result.out.match(/^ {2}subgraph /gm)).toHaveLength(3);
  });

  it("refuses --json and --mermaid together", async () => {
    const result = await runCli("plan", EXAMPLE, "--json", "--mermaid");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/cannot be used with option '--mermaid'/);
  });

  it("exits 2 and plans nothing for an invalid graph", async () => {
    const path = file("rpg.json", text(rpgDoc([leaf({ id: "a", deps: ["b"] }), leaf({ id: "b", deps: ["a"] })])));
    const result = await runCli("plan", path, "--json");
    expect(result).toMatchObject({ code: 2, out: "" });
    expect(result.err).toContain("RPG_CYCLE a dependencies: dependency cycle: a → b → a");
  });
});

describe("rpg-forge status", () => {
  it("shows counts per subgraph and the failed nodes", async () => {
    const path = join(tempDir(), "cp.json");
    await writeCheckpoint(
      path,
      checkpointOf({
        a: checkpointEntry("passed", { subgraph_id: "io" }),
        b: checkpointEntry("failed", { subgraph_id: "core", retry_count: 8, failure_reason: "AssertionError: expected 5.0, got nan" }),
        c: checkpointEntry("skipped", { subgraph_id: "core", blocked_by: ["b"] }),
      }),
    );
    const result = await runCli("status", path);
    expect(result.code).toBe(0);
    expect(result.out).toContain("3 nodes: 1 passed (33%), 1 failed, 1 skipped, 0 not yet generated");
    expect(result.out).toContain("b [core] after 8 debug iterations: AssertionError: expected 5.0, got nan");
    expect(result.out).toContain("c ← b");
    expect(result.out).toMatch(/core +2 +0 +1 +1 +0/);
    const json = JSON.parse((await runCli("status", path, "--json")).out);
    expect(json.counts).toMatchObject({ total: 3, passed: 1, failed: 1, skipped: 1 });
  });

  it("exits 2 naming a missing or corrupt checkpoint", async () => {
    expect(await runCli("status", join(tempDir(), "none.json"))).toMatchObject({
      code: 2,
      err: expect.stringContaining("INPUT_NOT_FOUND"),
    });
    const corrupt = file("cp.json", "{ nope");
    const result = await runCli("status", corrupt);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`CHECKPOINT_CORRUPT: the checkpoint is corrupt: not valid JSON (${corrupt})`);
    expect(result.err).toContain("hint: pass --fresh");
  });
});

describe("help", () => {
  it.each([[[]], [["validate"]], [["plan"]], [["status"]]])("prints --help for %j and exits 0", async (command) => {
    const result = await runCli(...command, "--help");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^Usage: rpg-forge/);
  });

  it("offers the sandbox's resource limits on generate, with their defaults, and refuses a limit of 0", async () => {
    const help = await runCli("generate", "--help");
    for (const flag of ["--memory-limit <MiB>", "--file-size-limit <MiB>", "--process-limit <n>", "--cpu-limit <seconds>"])
      expect(help.out).toContain(flag);
    expect(help.out).toMatch(/--memory-limit <MiB>[\s\S]*?\(default: 4096\)/);
    const zero = await runCli("generate", EXAMPLE, "--out", file("never", ""), "--cpu-limit", "0");
    expect(zero.code).toBe(2);
    expect(zero.err).toContain("--cpu-limit");
  });

  it("exits 2 on an unknown command or option", async () => {
    expect((await runCli("frobnicate")).code).toBe(2);
    expect((await runCli("plan", EXAMPLE, "--colour")).code).toBe(2);
  });
});

describe("the rpg-forge process", () => {
  it("exits 2 with the line and column of malformed JSON and no stack trace", () => {
    const path = file("rpg.json", '{\n  "nodes": [\n    { "id": "a" \n');
    const result = spawnCli(["validate", path]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^RPG_JSON_SYNTAX: not valid JSON: .* at line 4, column 1 \(/);
    expect(result.err).not.toMatch(/^\s+at /m);
  });

  it("prints the plan of the shipped example", () => {
    const result = spawnCli(["plan", EXAMPLE, "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).order).toHaveLength(14);
  });
});
