import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { buildPlan } from "../../src/plan/plan.js";
import { loadRpg } from "../../src/rpg/load.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/rpg/docs-example.json", import.meta.url));

/** The fenced code blocks of one `## heading` section, in order. */
function codeBlocksOf(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) return [];
  const end = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe("docs/rpg-format.md", () => {
  let blocks: string[];

  beforeAll(async () => {
    blocks = codeBlocksOf(await readFile(new URL("../../docs/rpg-format.md", import.meta.url), "utf8"), "A complete example");
  });

  it("shows the same complete example as tests/fixtures/rpg/docs-example.json", async () => {
    expect(JSON.parse(blocks[0] ?? "null")).toEqual(JSON.parse(await readFile(FIXTURE, "utf8")));
  });

  it("has an example that validates without errors or warnings", async () => {
    const loaded = await loadRpg(FIXTURE);
    expect(loaded.ok ? loaded.warnings : loaded.issues).toEqual([]);
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(["validate", FIXTURE], { out: (t) => void out.push(t), err: (t) => void err.push(t) });
    expect({ code, err: err.join("") }).toEqual({ code: 0, err: "" });
  });

  it("gives the order `rpg-forge plan` computes for the example", async () => {
    const loaded = await loadRpg(FIXTURE);
    if (!loaded.ok) throw new Error("the example does not load");
    const shown = [...(blocks[1] ?? "").matchAll(/^\s*\d+\. (\S+)/gm)].map((m) => m[1]);
    expect(shown).toEqual(buildPlan(loaded.value).order);
  });
});
