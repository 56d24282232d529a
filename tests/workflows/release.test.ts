// rpg-forge's own release workflow, read by GitHub's workflow parser: a tag vX.Y.Z checks dist/ and moves v1.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { NoOperationTraceWriter, convertWorkflowTemplate, parseWorkflow } from "@actions/workflow-parser";
import { describe, expect, it } from "vitest";
import { load } from "js-yaml";

const FILE = fileURLToPath(new URL("../../.github/workflows/release.yml", import.meta.url));

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
});
