import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { readInputs } from "../../src/action/inputs.js";
import { RepoConfigSchema } from "../../src/config/repo-config.js";
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

function withConfig(dir: string, yaml: string): string {
  mkdirSync(join(dir, ".github"), { recursive: true });
  writeFileSync(join(dir, ".github", "rpg-forge.yml"), yaml);
  return dir;
}

describe("the Action and .github/rpg-forge.yml", () => {
  it("fails before any work on a bad config, naming the file and each bad key, with an annotation on its line", async () => {
    const issue = standIn.addIssue({ title: "Generate statkit", labels: ["generate"] });
    const dir = withConfig(
      workspace("bad-config", readFileSync(join(EXAMPLE, "rpg.json"), "utf8")),
      "label: generate\nmodle: gpt-4.1\nmax-iterations: many\n",
    );
    const before = standIn.requests.length;
    const run = await runAction({
      workspace: dir,
      runnerDir: join(root, "runner-bad-config"),
      inputs: { mode: "generate", "github-token": "ghs_test_token" },
      event: { name: "issues", payload: { action: "labeled", issue: { number: issue }, repository: { default_branch: "main" } } },
      env: env(),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^::error title=rpg-forge configuration,file=.github\/rpg-forge.yml,line=2::modle: unknown setting; did you mean model\?$/m,
    );
    expect(run.stdout).toMatch(
      /^::error title=rpg-forge configuration,file=.github\/rpg-forge.yml,line=3::max-iterations: must be a whole number from 1 to 50 \(got "many"\)$/m,
    );
    expect(run.stdout).toContain(
      '::error::.github/rpg-forge.yml is invalid, nothing was run:%0A  modle: unknown setting; did you mean model?%0A  max-iterations: must be a whole number from 1 to 50 (got "many")',
    );
    expect(run.summary).toContain("`.github/rpg-forge.yml` is invalid");
    // Before any work: no plan, no request to GitHub, nothing committed.
    expect(run.outputs).toEqual({});
    expect(standIn.requests.length).toBe(before);
    expect(execFileSync("git", ["-C", dir, "branch", "--list"], { encoding: "utf8" })).toBe("");
  });

  it("reports YAML that does not parse at its line and column", async () => {
    const dir = withConfig(
      workspace("yaml-error", readFileSync(join(EXAMPLE, "rpg.json"), "utf8")),
      "label: generate\nrpg: [rpg.json\nmodel: m\n",
    );
    const run = await runAction({
      workspace: dir,
      runnerDir: join(root, "runner-yaml-error"),
      inputs: { mode: "plan" },
      event: { name: "push", payload: {} },
      env: env(),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^::error title=rpg-forge configuration,file=.github\/rpg-forge.yml,line=3,col=1::.github\/rpg-forge.yml line 3, column 1: not valid YAML: /m,
    );
    expect(run.outputs).toEqual({});
  });

  it("plans the config's first RPG when rpg-path is empty, and the input's when it is given", async () => {
    const dir = withConfig(workspace("config-rpg", ""), "rpg: [graphs/statkit.json, graphs/other.json]\n");
    rmSync(join(dir, "rpg.json"));
    mkdirSync(join(dir, "graphs"));
    copyFileSync(join(EXAMPLE, "rpg.json"), join(dir, "graphs", "statkit.json"));
    const plan = (runnerDir: string, inputs: Record<string, string>) =>
      runAction({
        workspace: dir,
        runnerDir: join(root, runnerDir),
        inputs: { mode: "plan", ...inputs },
        event: { name: "push", payload: {} },
        env: env(),
      });

    const fromConfig = await plan("runner-config-rpg", { "rpg-path": "" });
    expect(fromConfig.code).toBe(0);
    expect(JSON.parse(fromConfig.outputs.waves!)).toEqual([["validation"], ["stats"], ["report"]]);
    expect(fromConfig.summary).toContain("graphs/statkit.json");

    const fromInput = await plan("runner-input-rpg", { "rpg-path": "graphs/missing.json" });
    expect(fromInput.code).toBe(1);
    expect(fromInput.stdout).toContain("graphs/missing.json");
  });
});

describe("readInputs: the input, else .github/rpg-forge.yml, else the built-in default", () => {
  const INPUTS = [
    "rpg-path",
    "mode",
    "nodes",
    "subgraphs",
    "model",
    "max-iterations",
    "concurrency",
    "base-branch",
    "github-token",
    "issue",
  ];
  const setInputs = (values: Record<string, string>) => {
    for (const name of INPUTS) vi.stubEnv(`INPUT_${name.toUpperCase()}`, values[name] ?? "");
  };
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const config = RepoConfigSchema.parse({
    rpg: ["graphs/a.json", "graphs/b.json"],
    model: "config-model",
    "max-iterations": 20,
    concurrency: 3,
    "base-branch": "develop",
  });
  const picked = ({ rpgPath, model, maxIterations, concurrency, baseBranch }: ReturnType<typeof readInputs>) => ({
    rpgPath,
    model,
    maxIterations,
    concurrency,
    baseBranch,
  });

  it("takes the built-in defaults with neither inputs nor a config", () => {
    setInputs({});
    expect(picked(readInputs())).toEqual({ rpgPath: "rpg.json", model: "", maxIterations: 8, concurrency: 1, baseBranch: "" });
  });

  it("takes the config's values for the inputs left empty", () => {
    setInputs({});
    expect(picked(readInputs(config))).toEqual({
      rpgPath: "graphs/a.json",
      model: "config-model",
      maxIterations: 20,
      concurrency: 3,
      baseBranch: "develop",
    });
  });

  it("lets an input given explicitly win over the config", () => {
    setInputs({ "rpg-path": "rpg.json", model: "input-model", "max-iterations": "5", concurrency: "2", "base-branch": "main" });
    expect(picked(readInputs(config))).toEqual({
      rpgPath: "rpg.json",
      model: "input-model",
      maxIterations: 5,
      concurrency: 2,
      baseBranch: "main",
    });
  });

  it("takes the diagnosis votes from the config alone, the engine's default when it has none", () => {
    setInputs({});
    expect(readInputs(RepoConfigSchema.parse({ "diagnosis-votes": 3 })).diagnosisVotes).toBe(3);
    expect(readInputs(config).diagnosisVotes).toBeUndefined();
  });

  it("takes the built-in default for a key the config leaves out", () => {
    setInputs({ model: "input-model" });
    expect(picked(readInputs(RepoConfigSchema.parse({ concurrency: 4 })))).toEqual({
      rpgPath: "rpg.json",
      model: "input-model",
      maxIterations: 8,
      concurrency: 4,
      baseBranch: "",
    });
  });
});

describe("the request input", () => {
  const setInputs = (values: Record<string, string>) => {
    for (const name of ["mode", "nodes", "request", "issue", "rpg-path", "max-iterations", "concurrency", "sandbox"])
      vi.stubEnv(`INPUT_${name.toUpperCase()}`, values[name] ?? "");
  };
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("names the comment or review that asked for a revise; a review needs no nodes", () => {
    setInputs({ mode: "revise", request: "review-80", issue: "7" });
    expect(readInputs()).toMatchObject({ mode: "revise", nodes: [], request: { kind: "review", id: 80 }, issue: 7 });
    setInputs({ mode: "revise", nodes: "stats.mean", request: "comment-12" });
    expect(readInputs()).toMatchObject({ nodes: ["stats.mean"], request: { kind: "comment", id: 12 } });
    setInputs({ mode: "retry" });
    expect(readInputs().request).toBeUndefined();
  });

  it("is refused in any other form, and a revise asked by a comment still needs its nodes", () => {
    setInputs({ mode: "revise", nodes: "a", request: "review-80; rm -rf /" });
    expect(() => readInputs()).toThrow("request must be comment-<id> or review-<id>");
    setInputs({ mode: "revise", request: "comment-12" });
    expect(() => readInputs()).toThrow(
      "mode revise needs the nodes to regenerate (input nodes) or the review that asks for it (input request)",
    );
  });
});
