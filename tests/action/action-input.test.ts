import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../helpers/github-stand-in.js";
import { runAction } from "./run-action.js";

const EXAMPLE = fileURLToPath(new URL("../../examples/statkit/", import.meta.url));

let root: string;
let standIn: GitHubStandIn;
const env = () => ({ GITHUB_REPOSITORY: "octo/statkit", GITHUB_API_URL: standIn.url });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "rpg-forge-action-input-"));
  standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit" });
});
afterAll(async () => {
  await standIn?.close();
  rmSync(root, { recursive: true, force: true });
});

function workspace(name: string, rpg: string): string {
  const dir = join(root, name);
  execFileSync("git", ["init", "--quiet", "--initial-branch", "main", dir]);
  writeFileSync(join(dir, "rpg.json"), rpg);
  return dir;
}

describe("the Action on bad input and in plan mode", () => {
  it("fails on an invalid RPG with an annotation per problem on its line, and says so on the issue that asked", async () => {
    const issue = standIn.addIssue({ title: "Generate statkit", labels: ["generate"] });
    const broken = readFileSync(join(EXAMPLE, "rpg.json"), "utf8").replace(
      '"dependencies": ["validation.parse_number"]',
      '"dependencies": ["validation.nowhere"]',
    );
    expect(broken).toContain("validation.nowhere");
    const dir = workspace("invalid", broken);
    const line = broken.split("\n").findIndex((l) => l.includes("validation.nowhere")) + 1;
    const run = await runAction({
      workspace: dir,
      runnerDir: join(root, "runner-invalid"),
      inputs: { "rpg-path": "rpg.json", mode: "generate", "github-token": "ghs_test_token" },
      event: { name: "issues", payload: { action: "labeled", issue: { number: issue }, repository: { default_branch: "main" } } },
      env: env(),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(
        `^::error title=RPG_DANGLING_REFERENCE,file=rpg.json,line=${line},col=\\d+::RPG_DANGLING_REFERENCE: .*validation\\.nowhere`,
        "m",
      ),
    );
    expect(run.stdout).toMatch(/^::error::rpg.json is invalid: 1 problem\(s\); see the annotations$/m);
    const comments = standIn.comments.filter((c) => c.issue_number === issue);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain("RPG_DANGLING_REFERENCE");
    expect(run.summary).toContain("is invalid");
    expect(standIn.violations).toEqual([]);
  });

  it("plans without generating: the plan, the waves and a summary with the graph", async () => {
    const dir = workspace("plan", "");
    copyFileSync(join(EXAMPLE, "rpg.json"), join(dir, "rpg.json"));
    const before = standIn.requests.length;
    const run = await runAction({
      workspace: dir,
      runnerDir: join(root, "runner-plan"),
      inputs: { mode: "plan" },
      event: { name: "push", payload: {} },
      env: env(),
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.outputs.waves!)).toEqual([["validation"], ["stats"], ["report"]]);
    expect(run.outputs["wave-count"]).toBe("3");
    const plan = JSON.parse(run.outputs.plan!) as { order: string[]; subgraphs: { id: string; dependsOn: string[] }[] };
    expect(plan.order).toHaveLength(14);
    expect(plan.subgraphs.find((s) => s.id === "stats")!.dependsOn).toEqual(["validation"]);
    expect(run.summary).toContain("```mermaid");
    expect(standIn.requests.length).toBe(before);
  });

  it("names a bad input instead of starting", async () => {
    const dir = workspace("bad-input", "{}");
    const run = await runAction({
      workspace: dir,
      runnerDir: join(root, "runner-bad"),
      inputs: { mode: "revise", "max-iterations": "0" },
      event: { name: "push", payload: {} },
      env: env(),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "::error::invalid input: max-iterations must be at least 1; mode revise needs the nodes to regenerate (input nodes)",
    );
  });
});
