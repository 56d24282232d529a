// rpg-forge's own release workflow, read by GitHub's workflow parser: a tag vX.Y.Z checks dist/ and the workflows'
// references to rpg-forge, then moves v1, which users' `uses:` of the action and of the reusable workflow both name.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NoOperationTraceWriter, convertWorkflowTemplate, parseWorkflow } from "@actions/workflow-parser";
import { describe, expect, it } from "vitest";
import { load } from "js-yaml";
import { useTempDirs } from "../helpers/temp-dir.js";

const FILE = fileURLToPath(new URL("../../.github/workflows/release.yml", import.meta.url));
const WORKFLOWS = fileURLToPath(new URL("../../.github/workflows", import.meta.url));

interface Step {
  run?: string;
  name?: string;
  env?: Record<string, string>;
}

async function releaseSteps(): Promise<Step[]> {
  const workflow = load(await readFile(FILE, "utf8")) as { jobs: { release: { steps: Step[] } } };
  return workflow.jobs.release.steps;
}

describe("release.yml", () => {
  it("parses without an error, runs on version tags only, and checks dist/ before it moves the major tag", async () => {
    const content = await readFile(FILE, "utf8");
    const parsed = parseWorkflow({ name: "release.yml", content }, new NoOperationTraceWriter());
    expect(parsed.value).toBeDefined();
    await convertWorkflowTemplate(parsed.context, parsed.value!);
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    const workflow = load(content) as {
      on: { push: { tags: string[]; branches?: unknown } };
      permissions: Record<string, string>;
      jobs: { release: { steps: { run?: string; name?: string }[] } };
    };
    expect(workflow.on.push).toEqual({ tags: ["v[0-9]+.[0-9]+.[0-9]+"] });
    expect(workflow.permissions).toEqual({ contents: "write" });
    const runs = workflow.jobs.release.steps.map((s) => s.run ?? "");
    const check = runs.findIndex((r) => r.includes("npm run bundle -- --check"));
    const move = runs.findIndex((r) => r.includes('git tag --force "$major"'));
    expect(check).toBeGreaterThanOrEqual(0);
    expect(move).toBeGreaterThan(check);
  });

  const tempDir = useTempDirs();
  // The same major tag names the action, the reusable workflow and the template's call of it: a release that moved v1
  // while a file still said @v2 (or the other way round) would leave users' runs on a mix of two versions.
  const guard = async () => {
    const steps = await releaseSteps();
    const index = steps.findIndex((s) => s.name === "The workflows call rpg-forge at the major being released");
    const move = steps.findIndex((s) => s.run?.includes('git tag --force "$major"'));
    expect(index).toBeGreaterThanOrEqual(0);
    expect(move).toBeGreaterThan(index);
    expect(steps[index]?.env).toEqual({ TAG: "${{ github.ref_name }}" });
    return (cwd: string, tag: string) => {
      try {
        execFileSync("bash", ["-c", steps[index]?.run ?? ""], { cwd, env: { PATH: process.env["PATH"], TAG: tag }, stdio: "pipe" });
        return { ok: true, output: "" };
      } catch (error) {
        return { ok: false, output: String((error as { stdout?: Buffer }).stdout) };
      }
    };
  };

  it("releases this repository's workflows as v1 only while every `uses:` of rpg-forge in them says v1", async () => {
    const run = await guard();
    const dir = tempDir();
    cpSync(WORKFLOWS, join(dir, ".github", "workflows"), { recursive: true });
    expect(run(dir, "v1.4.0")).toEqual({ ok: true, output: "" });
    const refused = run(dir, "v2.0.0");
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain("rpg-generate.yml");
    expect(refused.output).toContain("uses: rpg-forge/rpg-forge/.github/workflows/rpg-forge.yml@v1");
    expect(refused.output).toContain("rpg-forge.yml");
    expect(refused.output).toContain("::error::");
  });

  it("looks at `uses:` lines only, so prose about a version in a comment is no reason to refuse", async () => {
    const run = await guard();
    const dir = tempDir();
    mkdirSync(join(dir, ".github", "workflows"), { recursive: true });
    const file = join(dir, ".github", "workflows", "x.yml");
    writeFileSync(
      file,
      "# was rpg-forge/rpg-forge@v0, and `uses: rpg-forge/rpg-forge@v0` in the docs\njobs:\n  a:\n    uses: rpg-forge/rpg-forge/.github/workflows/rpg-forge.yml@v1\n",
    );
    expect(run(dir, "v1.0.1").ok).toBe(true);
    writeFileSync(file, "jobs:\n  a:\n    steps:\n      - uses: rpg-forge/rpg-forge@main\n");
    expect(run(dir, "v1.0.1").ok).toBe(false);
  });
});
