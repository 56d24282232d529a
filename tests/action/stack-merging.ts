import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { cpSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { expect } from "vitest";
import { startGitHubStandIn, type GitHubStandIn, type StoredPull } from "../helpers/github-stand-in.js";
import { createVenv, type Venv } from "../helpers/python-venv.js";
import { TOKEN, checkout, git, payload } from "./fixtures.js";
import { runAction, type ActionRun } from "./run-action.js";

/**
 * What a person does with rpg-forge's pull requests, for real: the Action runs on a graph,
 * and its PRs are merged in the order their bodies state with the repository's merge
 * method, the Action restacking the rest after each merge (as the workflow's restack job
 * does). Git is real throughout: a bare remote, and a GitHub stand-in that merges on it.
 */

export type MergeMethod = "merge" | "squash" | "rebase";

/** A diamond of subgraphs, two sharing a module (tests/fixtures/diamond, with its cassette). */
export const DIAMOND: Graph = { dir: fileURLToPath(new URL("../fixtures/diamond/", import.meta.url)), module: "dia" };

export interface Graph {
  /** The folder holding rpg.json and cassette.jsonl. */
  dir: string;
  /** The package's import name. */
  module: string;
}

/** What the runner tells the Action of the repository, with the stand-in as GitHub's API. */
export const standInEnv = (standIn: GitHubStandIn) => ({
  GITHUB_REPOSITORY: "octo/statkit",
  GITHUB_API_URL: standIn.url,
  GITHUB_SERVER_URL: "https://github.com",
});

/** A bare repository whose main holds the graph and a README, a workflow file and a configuration of the user's own. */
export function seedRemoteWith(root: string, graph: Graph): string {
  const remote = join(root, "remote.git");
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch", "main", remote]);
  const seed = join(root, "seed");
  execFileSync("git", ["clone", "--quiet", remote, seed], { stdio: "ignore" });
  git(seed, "checkout", "--quiet", "-B", "main");
  copyFileSync(join(graph.dir, "rpg.json"), join(seed, "rpg.json"));
  writeFileSync(join(seed, "README.md"), "# Ours\n\nOur plan, in rpg.json.\n");
  mkdirSync(join(seed, ".github/workflows"), { recursive: true });
  writeFileSync(join(seed, ".github/workflows/ci.yml"), "name: ci\non: [pull_request]\n");
  // What is merged is the point here, not the debug loop or the measures after a pass (the engine tests have them).
  writeFileSync(join(seed, ".github/rpg-forge.yml"), "mutants: 0\nmax-iterations: 1\n");
  git(seed, "add", ".");
  git(seed, "commit", "--quiet", "-m", "plan");
  git(seed, "push", "--quiet", "origin", "main");
  return remote;
}

let runs = 0;

/** One run of the bundled Action in a fresh checkout of main, as a workflow job. */
export async function actionRun(root: string, remote: string, standIn: GitHubStandIn, inputs: Record<string, string>): Promise<ActionRun> {
  const n = ++runs;
  const run = await runAction({
    workspace: checkout(root, remote, `job-${n}`),
    runnerDir: join(root, `runner-${n}`),
    inputs: { "rpg-path": "rpg.json", "github-token": TOKEN, ...inputs },
    event: { name: "pull_request", payload: payload("pull_request", "closed") },
    env: standInEnv(standIn),
  });
  if (run.code !== 0) throw new Error(`the Action failed (${inputs.mode}):\n${run.stdout.slice(-4000)}\n${run.stderr}`);
  return run;
}

/** The open PRs of the stack in the order their bodies state ("**Merge order:** k of n"). */
export function inMergeOrder(pulls: readonly StoredPull[]): StoredPull[] {
  const rank = (p: StoredPull) => Number(/\*\*Merge order:\*\* (\d+) of \d+/.exec(p.body ?? "")?.[1] ?? Number.NaN);
  const open = pulls.filter((p) => p.state === "open");
  for (const p of open) expect(rank(p), `PR #${p.number} states its place in the merge order`).not.toBeNaN();
  return open.sort((a, b) => rank(a) - rank(b));
}

/** The files a PR's diff shows, as GitHub computes it: from the merge base of its base and head. */
export function diffOf(remote: string, pull: StoredPull): string[] {
  return git(remote, "diff", "--name-only", `refs/heads/${pull.base.ref}...refs/heads/${pull.head.ref}`).split("\n").filter(Boolean);
}

export interface MergedRun {
  /** Each merge's number and the diff its PR showed just before it was merged. */
  merged: { head: string; base: string; diff: string[] }[];
  /** main, checked out once every PR is merged. */
  main: string;
}

/**
 * Copies the remote as the first run left it, opens its PRs on a fresh stand-in (a restack
 * run publishes them), then merges them one by one in the stated order with `method`,
 * restacking after each merge. Every merge must succeed: GitHub answers 405 on a conflict.
 */
export async function mergeAll(root: string, generated: string, method: MergeMethod, deleteBranchOnMerge: boolean): Promise<MergedRun> {
  const remote = join(root, `remote-${method}.git`);
  cpSync(generated, remote, { recursive: true });
  const standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit", remote, deleteBranchOnMerge });
  try {
    const gh = new Octokit({ auth: TOKEN, baseUrl: standIn.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
    await actionRun(root, remote, standIn, { mode: "restack" });
    const merged: MergedRun["merged"] = [];
    for (let next = inMergeOrder(standIn.pulls)[0]; next !== undefined; next = inMergeOrder(standIn.pulls)[0]) {
      // The next PR to merge targets the base branch, and shows only its own subgraph's changes.
      expect(next.base.ref, `${next.head.ref} targets main when its turn comes`).toBe("main");
      merged.push({ head: next.head.ref, base: next.base.ref, diff: diffOf(remote, next) });
      const { data } = await gh.rest.pulls.merge({ owner: "octo", repo: "statkit", pull_number: next.number, merge_method: method });
      expect(data.merged).toBe(true);
      await actionRun(root, remote, standIn, { mode: "restack" });
    }
    expect(standIn.violations).toEqual([]);
    return { merged, main: checkout(root, remote, `main-${method}`) };
  } finally {
    await standIn.close();
  }
}

/** How many tests passed in each tree (git's id of a commit's files) installed and tested in a venv. */
const testedTrees = new WeakMap<Venv, Map<string, number>>();

/**
 * Installs the package in a checked-out folder into a venv and runs its tests there; returns how many passed. A folder
 * whose files are, byte for byte, a tree already installed and tested in this venv (main merged by another method,
 * most often) gets that tree's result: an install costs seconds of CPU, and the same files install and test the same.
 */
export function installAndTest(venv: Venv, packageDir: string, cwd: string, module: string): number {
  expect(git(packageDir, "status", "--porcelain", "--ignored"), `${packageDir} holds only its commit's files`).toBe("");
  const tree = git(packageDir, "rev-parse", "HEAD^{tree}");
  const tested = testedTrees.get(venv) ?? new Map<string, number>();
  testedTrees.set(venv, tested);
  const known = tested.get(tree);
  if (known !== undefined) return known;
  const passed = installAndTestAfresh(venv, packageDir, cwd, module);
  tested.set(tree, passed);
  return passed;
}

function installAndTestAfresh(venv: Venv, packageDir: string, cwd: string, module: string): number {
  const installed = venv.install(packageDir);
  expect(installed.stderr, `pip install -e ${packageDir}`).toBe("");
  expect(installed.status).toBe(0);
  const imported = execFileSync(venv.python, ["-c", `import ${module}; print(len(${module}.__all__))`], { cwd, encoding: "utf8" });
  expect(Number(imported)).toBeGreaterThan(0);
  const tests = venv.pytest(packageDir, cwd);
  expect(tests.status, tests.stdout.slice(-2000)).toBe(0);
  return Number(/(\d+) passed/.exec(tests.stdout)?.[1] ?? 0);
}

/** Checks out each PR branch of the remote on its own, installs it and runs its suite: every level a working package. */
export function eachBranchAlone(root: string, remote: string, branches: readonly string[], module: string, venv: Venv): number[] {
  return branches.map((branch, i) => {
    const dir = join(root, `alone-${i}`);
    execFileSync("git", ["clone", "--quiet", "--branch", branch, remote, dir]);
    return installAndTest(venv, dir, root, module);
  });
}

/** A person's commit on top of a PR branch, pushed to the remote: what rpg-forge must never force-push over. */
export function personPushes(root: string, remote: string, branch: string, file: string): string {
  const dir = join(root, `person-${branch.replace(/\//g, "-")}`);
  execFileSync("git", ["clone", "--quiet", "--branch", branch, remote, dir]);
  writeFileSync(join(dir, file), "# A note of mine.\n", { flag: "a" });
  git(dir, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "--quiet", "-am", "a fix of mine");
  git(dir, "push", "--quiet", "origin", branch);
  return git(dir, "rev-parse", "HEAD");
}

/** The remote as the first run left it, under another name, with its PRs opened on a fresh stand-in by a restack run. */
export async function copyWithPulls(root: string, generated: string, name: string): Promise<{ remote: string; standIn: GitHubStandIn }> {
  const remote = join(root, `remote-${name}.git`);
  cpSync(generated, remote, { recursive: true });
  const standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit", remote });
  await actionRun(root, remote, standIn, { mode: "restack" });
  return { remote, standIn };
}

export interface MergedGraph {
  root: string;
  /** The remote as the Action's first run left it. */
  remote: string;
  venv: Venv;
  /** The PRs that run opened, in the merge order their bodies state. */
  opened: StoredPull[];
  /** How many tests each PR branch passes on its own, installed, in merge order. */
  alone: number[];
  results: Map<MergeMethod, MergedRun>;
}

/**
 * A graph through the whole cycle: the Action generates it on a fresh remote; each PR branch is
 * installed and tested alone; then, on a copy of that remote per method, every PR is merged in
 * order with a restack after each. `deleteBranchOnMerge` picks the method under which GitHub
 * deletes merged branches (and retargets the PRs stacked on them itself).
 */
export async function generateAndMerge(graph: Graph, prefix: string, order: readonly string[], deletes: MergeMethod): Promise<MergedGraph> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const remote = seedRemoteWith(root, graph);
  const standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit", remote });
  let opened: StoredPull[];
  try {
    await actionRun(root, remote, standIn, { mode: "generate", replay: join(graph.dir, "cassette.jsonl"), concurrency: "3" });
    opened = inMergeOrder(standIn.pulls);
  } finally {
    await standIn.close();
  }
  return mergeGenerated(root, remote, opened, graph.module, order, deletes);
}

/**
 * The rest of the cycle, for a remote the Action's generate run left and the PRs it opened: each PR branch installed and
 * tested alone, then every PR merged in order on a copy of the remote per method, with a restack after each merge.
 */
export async function mergeGenerated(
  root: string,
  remote: string,
  opened: StoredPull[],
  module: string,
  order: readonly string[],
  deletes: MergeMethod,
): Promise<MergedGraph> {
  const venv = createVenv(join(root, "venv"));
  const alone = eachBranchAlone(root, remote, order, module, venv);
  const results = new Map<MergeMethod, MergedRun>();
  for (const method of ["merge", "squash", "rebase"] as const)
    results.set(method, await mergeAll(root, remote, method, method === deletes));
  return { root, remote, venv, opened, alone, results };
}
