import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeCheckpoint, type Checkpoint } from "../../src/engine/checkpoint.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const NAME = "RPG_FORGE_TEST_CHECKPOINT_SECRET";
const SECRET = "s3cr3t-value-of-the-runner";

const checkpoint = (output: string): Checkpoint => ({
  version: 1,
  run_id: "run-1",
  rpg_sha256: "abc",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  nodes: {
    leak: {
      status: "failed",
      timestamp: "2026-01-01T00:00:00.000Z",
      test_results: { passed: 0, failed: 1 },
      retry_count: 1,
      failure_reason: "tests still failing",
      attempts: [],
      failure_context: { failingTests: [{ name: "test_leak", message: `ValueError: ${output}` }], output, attempts: [] },
    },
  },
});

afterEach(() => {
  delete process.env[NAME];
});

describe("writeCheckpoint", () => {
  it("writes no secret of the environment that generated code printed (the file is committed and pushed)", async () => {
    process.env[NAME] = SECRET;
    const path = join(tempDir(), "docs/generation_checkpoint.json");
    await writeCheckpoint(path, checkpoint(`stolen ${SECRET} and a "quoted ${SECRET}"`));
    const written = readFileSync(path, "utf8");
    expect(written).not.toContain(SECRET);
    expect(JSON.parse(written).nodes.leak.failure_context.output).toBe(`stolen [redacted ${NAME}] and a "quoted [redacted ${NAME}]"`);
  });

  it("refuses a docs/ that is a link, writing nothing where it points", async () => {
    const root = tempDir();
    const outside = join(root, "outside");
    mkdirSync(outside);
    mkdirSync(join(root, "out"));
    symlinkSync(outside, join(root, "out/docs"));
    await expect(writeCheckpoint(join(root, "out/docs/generation_checkpoint.json"), checkpoint(""))).rejects.toMatchObject({
      code: "OUTPUT_SYMLINK",
    });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses a checkpoint file that is a link", async () => {
    const root = tempDir();
    mkdirSync(join(root, "out/docs"), { recursive: true });
    symlinkSync(join(root, "x"), join(root, "out/docs/generation_checkpoint.json"));
    await expect(writeCheckpoint(join(root, "out/docs/generation_checkpoint.json"), checkpoint(""))).rejects.toMatchObject({
      code: "OUTPUT_SYMLINK",
    });
    expect(existsSync(join(root, "x"))).toBe(false);
  });
});
