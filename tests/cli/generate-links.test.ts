import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const EXAMPLE = "examples/statkit/rpg.json";
const CASSETTE = "examples/statkit/cassette.jsonl";

/**
 * A link where rpg-forge writes its own files (committed in the repository, or left by
 * code that ran outside bwrap) would carry the checkpoint, the artifacts and the report
 * out of the output. generate refuses to start, exit 2, before writing anything.
 */
describe("rpg-forge generate with a symbolic link where it writes", () => {
  it.each([
    ["docs", (outside: string) => outside],
    [".rpg-forge", (outside: string) => outside],
    [".rpg-forge/runs", (outside: string) => outside],
    ["docs/generation_checkpoint.json", (outside: string) => join(outside, "x")],
  ])("refuses %s as a link, writing nothing inside or outside the output", async (link, target) => {
    const root = tempDir();
    const out = join(root, "out");
    const outside = join(root, "outside");
    mkdirSync(outside);
    mkdirSync(join(out, link, ".."), { recursive: true });
    symlinkSync(target(outside), join(out, link));
    const before = readdirSync(out, { recursive: true }).sort();

    const result = await runCli("generate", EXAMPLE, "--out", out, "--replay", CASSETTE);

    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^OUTPUT_SYMLINK\b.*is a symbolic link/m);
    expect(result.err).toContain(join(out, link));
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(outside, "x"))).toBe(false);
    expect(readdirSync(out, { recursive: true }).sort()).toEqual(before);
  });
});
