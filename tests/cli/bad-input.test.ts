import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeCheckpoint } from "../../src/engine/checkpoint.js";
import { runCli } from "../helpers/cli.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { checkpointEntry, checkpointOf } from "../helpers/checkpoint.js";

const tempDir = useTempDirs();
// Control characters other than the newline.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const EXAMPLE = "examples/statkit/rpg.json";
const CASSETTE = "examples/statkit/cassette.jsonl";
const MODEL_ENV = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "RPG_FORGE_MODEL"] as const;
const saved = Object.fromEntries(MODEL_ENV.map((k) => [k, process.env[k]]));

// A run must never reach a model here: a bad input is refused before the first request.
beforeEach(() => {
  for (const k of MODEL_ENV) delete process.env[k];
});
afterEach(() => {
  for (const k of MODEL_ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

function file(name: string, content: string | Buffer): string {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
}

const emptyCassette = (): string => file("empty.jsonl", "");
const directoryCassette = (): string => {
  const dir = join(tempDir(), "cassette.jsonl");
  mkdirSync(dir);
  return dir;
};
const invalidCassette = (): string => file("bad.jsonl", "{ not json\n");
const rpgFile = (doc: unknown): string => file("rpg.json", text(doc));

const cases: [string, () => string[], RegExp][] = [
  [
    "--only with an unknown node id",
    () => [EXAMPLE, "--replay", CASSETTE, "--only", "validation.parse_number,stats.nope"],
    /^RESUME_UNKNOWN_NODE stats\.nope -: --only names "stats\.nope"/m,
  ],
  [
    "--start-from-node with an unknown node id",
    () => [EXAMPLE, "--replay", CASSETTE, "--start-from-node", "nope"],
    /^RESUME_UNKNOWN_NODE nope -: /m,
  ],
  [
    "--start-from-node whose dependencies have not passed",
    () => [EXAMPLE, "--replay", CASSETTE, "--start-from-node", "stats.mean"],
    /^RESUME_DEPENDENCY_NOT_PASSED stats\.mean dependencies: .*validation\.ensure_numbers \(pending\)/m,
  ],
  [
    "--only a node whose dependencies have not passed",
    () => [EXAMPLE, "--replay", CASSETTE, "--only", "stats.mean"],
    /^RESUME_DEPENDENCY_NOT_PASSED stats\.mean /m,
  ],
  [
    "an empty cassette",
    () => [EXAMPLE, "--replay", emptyCassette()],
    /^CASSETTE_INVALID: the cassette is empty: it holds no recorded exchange \(/m,
  ],
  [
    "a cassette that is a directory",
    () => [EXAMPLE, "--replay", directoryCassette()],
    /^CASSETTE_NOT_FOUND: the cassette is a directory, not a file \(/m,
  ],
  ["a cassette that is not JSON lines", () => [EXAMPLE, "--replay", invalidCassette()], /^CASSETTE_INVALID: line 1 is not valid JSON/m],
  [
    "an RPG with a newline in an id",
    () => [rpgFile(rpgDoc([leaf({ id: "a\nimport os" })])), "--replay", CASSETTE],
    /^RPG_ID_CONTROL_CHARACTER a\\nimport os id: /m,
  ],
  [
    "a cassette to record that is a directory",
    () => {
      process.env.OPENAI_API_KEY = "sk-never-sent";
      return [EXAMPLE, "--record", directoryCassette()];
    },
    /^CASSETTE_WRITE_FAILED: cannot record to the cassette: it is a directory, not a file \(/m,
  ],
  [
    "an RPG whose module would shadow rpg-forge's time limit",
    () => [rpgFile(rpgDoc([leaf({ id: "a", file: "rpg_forge_timeout.py" })])), "--replay", CASSETTE],
    /^RPG_PATH_SHADOWS_MODULE a file_path: /m,
  ],
  [
    "an RPG nested 100,000 deep",
    () => [file("deep.json", "[".repeat(100_000)), "--replay", CASSETTE],
    /^RPG_JSON_SYNTAX: not valid JSON: arrays and objects nest deeper than 256 levels/m,
  ],
  [
    "an RPG that is not UTF-8",
    () => [file("latin1.json", Buffer.from('{"nodes": [],\n"x": "caf\u00e9"}', "latin1")), "--replay", CASSETTE],
    /^RPG_JSON_SYNTAX: not valid JSON: line 2 is not valid UTF-8/m,
  ],
];

describe("rpg-forge generate: bad input exits 2 and writes nothing", () => {
  it.each(cases)("refuses %s and leaves a fresh folder as it was", async (_what, args, line) => {
    const out = tempDir();
    const result = await runCli("generate", ...args(), "--out", out);
    expect(result.err).toMatch(line);
    expect(result.code).toBe(2);
    expect(result.err).not.toMatch(/^\s+at /m); // no stack trace
    expect(readdirSync(out)).toEqual([]); // no .git, no skeleton, no checkpoint
  });

  it.each(cases)("refuses %s without creating a missing output folder", async (_what, args) => {
    const out = join(tempDir(), "out");
    expect((await runCli("generate", ...args(), "--out", out)).code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it("refuses a folder that is not a repository and holds files of someone else's, without a git init", async () => {
    const out = tempDir();
    writeFileSync(join(out, "notes.txt"), "mine\n");
    const result = await runCli("generate", EXAMPLE, "--replay", "examples/statkit/cassette.jsonl", "--out", out);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^GIT_DIRTY: the output has uncommitted changes: notes\.txt/m);
    expect(readdirSync(out)).toEqual(["notes.txt"]);
  });

  // Root reads every file whatever its mode, so there is nothing to refuse there.
  it.skipIf(process.getuid?.() === 0)("refuses a cassette it may not read", async () => {
    const cassette = file("secret.jsonl", "{}\n");
    chmodSync(cassette, 0o000);
    const out = tempDir();
    const result = await runCli("generate", EXAMPLE, "--replay", cassette, "--out", out);
    expect(result.err).toMatch(/^CASSETTE_NOT_FOUND: the cassette file cannot be read \(EACCES\)/m);
    expect(result.code).toBe(2);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe("problem lines", () => {
  it("leave out the node and field of a problem about neither, instead of `- -`", async () => {
    const missing = join(tempDir(), "missing.json");
    const result = await runCli("validate", missing);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(new RegExp(`^RPG_UNREADABLE: cannot read the RPG: no such file \\(${missing}\\)$`, "m"));
    expect(result.err).not.toContain(" - -:");
  });

  it("keep `-` for the one of node and field that does not apply", async () => {
    const result = await runCli("validate", rpgFile({ nodes: [] }));
    expect(result.err).toMatch(/^RPG_EMPTY - nodes: /m);
  });
});

describe("terminal output quoting the RPG", () => {
  const hostile = "\u001b]0;pwned\u0007\u001b[2J\rCore\u009b31m";

  it("carries no control character from an id into the problem lines", async () => {
    const result = await runCli("validate", rpgFile(rpgDoc([leaf({ id: `a${hostile}` })])));
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^RPG_ID_CONTROL_CHARACTER a\\u001b\]0;pwned\\u0007\\u001b\[2J\\rCore\\u009b31m id: /m);
    expect(result.err).not.toMatch(CONTROL);
  });

  it("prints a plan whose subgraph names hold escape sequences as plain lines", async () => {
    const doc = rpgDoc([leaf({ id: "a" })], [], { subgraphs: [{ id: "core", name: `Core${hostile}` }] });
    const result = await runCli("plan", rpgFile(doc));
    expect(result.code).toBe(0);
    expect(result.out).toContain("wave 0  core (Core Core): 1 nodes, needs nothing");
    expect(result.out).not.toMatch(CONTROL);
    const mermaid = await runCli("plan", rpgFile(doc), "--mermaid");
    expect(mermaid.out).not.toMatch(CONTROL);
  });

  it("prints a model's failure reason in status as one plain line", async () => {
    const path = join(tempDir(), "cp.json");
    const failure_reason = `I refuse.${hostile}\nb passed`;
    const a = checkpointEntry("failed", { test_results: { passed: 0, failed: 1 }, subgraph_id: "core", retry_count: 8, failure_reason });
    await writeCheckpoint(path, checkpointOf({ a }));
    const result = await runCli("status", path);
    expect(result.code).toBe(0);
    expect(result.out).toContain("  a [core] after 8 debug iterations: I refuse. Core b passed\n");
    expect(result.out).not.toMatch(CONTROL);
  });
});
