import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ArtifactStore } from "../../src/workspace/artifacts.js";
import { prepareOutputDir, writeOutputFile } from "../../src/workspace/output-dir.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const OWN = ["docs/generation_checkpoint.json", "docs/generation_report.md", ".rpg-forge/runs", ".rpg-forge/work"];

/** An output and a folder outside it that links point to. */
function setUp(): { out: string; outside: string } {
  const root = tempDir();
  const out = join(root, "out");
  const outside = join(root, "outside");
  mkdirSync(out);
  mkdirSync(outside);
  return { out, outside };
}

describe("prepareOutputDir refuses a link on the way to what rpg-forge writes, before writing anything", () => {
  it.each([
    ["docs", "docs"],
    [".rpg-forge", ".rpg-forge"],
    [".rpg-forge/runs", ".rpg-forge/runs"],
    ["docs/generation_checkpoint.json", "docs/generation_checkpoint.json"],
  ])("%s as a link", async (link) => {
    const { out, outside } = setUp();
    mkdirSync(join(out, link, ".."), { recursive: true });
    symlinkSync(link.endsWith(".json") ? join(outside, "x") : outside, join(out, link));
    const before = readdirSync(out, { recursive: true }).sort();
    await expect(prepareOutputDir(out, OWN)).rejects.toMatchObject({ code: "OUTPUT_SYMLINK", at: { file: join(out, link) } });
    expect(readdirSync(out, { recursive: true }).sort()).toEqual(before);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("accepts real folders and files, and a missing output", async () => {
    const { out } = setUp();
    mkdirSync(join(out, "docs"));
    writeFileSync(join(out, "docs/generation_checkpoint.json"), "{}");
    await expect(prepareOutputDir(out, OWN)).resolves.toBeUndefined();
    await expect(prepareOutputDir(join(out, "new"), OWN)).resolves.toBeUndefined();
  });
});

describe("the writers do not follow a link placed after the start", () => {
  const saved = process.env.RPG_FORGE_TEST_ARTIFACT_TOKEN;
  afterEach(() => {
    if (saved === undefined) delete process.env.RPG_FORGE_TEST_ARTIFACT_TOKEN;
    else process.env.RPG_FORGE_TEST_ARTIFACT_TOKEN = saved;
  });

  it("ArtifactStore refuses .rpg-forge/runs as a link", async () => {
    const { out, outside } = setUp();
    mkdirSync(join(out, ".rpg-forge"));
    symlinkSync(outside, join(out, ".rpg-forge/runs"));
    const store = new ArtifactStore(out, "run-1");
    await expect(store.save("n", "tests", { "reply.json": "{}" })).rejects.toMatchObject({ code: "OUTPUT_SYMLINK" });
    expect(readdirSync(outside)).toEqual([]);
  });

  it("ArtifactStore refuses a link in a file's place instead of writing where it points", async () => {
    const { out, outside } = setUp();
    const step = join(out, ".rpg-forge/runs/run-1/n/01-tests");
    mkdirSync(step, { recursive: true });
    symlinkSync(join(outside, "stolen"), join(step, "reply.json"));
    await expect(new ArtifactStore(out, "run-1").save("n", "tests", { "reply.json": "{}" })).rejects.toMatchObject({
      code: "OUTPUT_SYMLINK",
    });
    expect(existsSync(join(outside, "stolen"))).toBe(false);
  });

  it("ArtifactStore keeps no secret of the environment in what it saves", async () => {
    const { out } = setUp();
    process.env.RPG_FORGE_TEST_ARTIFACT_TOKEN = "tok-0123456789abcdef";
    const dir = await new ArtifactStore(out, "run-1").save("n", "green-gate", { "pytest-output.txt": "printed tok-0123456789abcdef" });
    expect(readFileSync(join(dir, "pytest-output.txt"), "utf8")).toBe("printed [redacted RPG_FORGE_TEST_ARTIFACT_TOKEN]");
  });

  it("writeOutputFile refuses docs/ as a link", async () => {
    const { out, outside } = setUp();
    symlinkSync(outside, join(out, "docs"));
    await expect(writeOutputFile(out, "docs/generation_report.md", "# report\n")).rejects.toMatchObject({ code: "OUTPUT_SYMLINK" });
    expect(readdirSync(outside)).toEqual([]);
  });
});
