import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Octokit } from "@octokit/rest";
import { Ajv } from "ajv";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn, type GitHubStandInOptions } from "./github-stand-in.js";
import { useTempDirs } from "./temp-dir.js";

// The stand-in with a bare remote: pull requests see real branch tips and pulls/merge merges for real.
// A test pushes branches from a working clone as "rpg-forge tests" (tests/helpers/git-identity.ts), so
// commits the stand-in makes as "GitHub" are told apart.

const tempDir = useTempDirs();
const target = { owner: "octo-org", repo: "stats" };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const git = (dir: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

let remote: string;
let work: string;
let standIn: GitHubStandIn | undefined;
let gh: Octokit;

beforeEach(() => {
  const root = tempDir();
  remote = join(root, "remote.git");
  work = join(root, "work");
  git(root, "init", "--quiet", "--bare", "--initial-branch", "main", remote);
  git(root, "init", "--quiet", "--initial-branch", "main", work);
  git(work, "remote", "add", "origin", remote);
  commit("Initial commit", { "README.md": "# stats\n" });
  git(work, "push", "--quiet", "origin", "main");
});
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function start(options: GitHubStandInOptions = {}): Promise<GitHubStandIn> {
  standIn = await startGitHubStandIn({ remote, ...options });
  gh = new Octokit({ auth: "test-token", baseUrl: standIn.url, log: quiet });
  return standIn;
}

/** Commits the files on the working clone's current branch. */
function commit(message: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), text);
  }
  git(work, "add", "--all");
  git(work, "commit", "--quiet", "-m", message);
  return git(work, "rev-parse", "HEAD");
}
const newBranch = (name: string, from = "main") => git(work, "checkout", "--quiet", "-b", name, from);
const onBranch = (name: string) => git(work, "checkout", "--quiet", name);
const push = (...branches: string[]) => git(work, "push", "--quiet", "origin", ...branches);

/** Reads the bare remote, where the stand-in pushes its merges. */
const inRemote = (...args: string[]) => git(remote, ...args);
const tip = (branch: string) => inRemote("rev-parse", `refs/heads/${branch}`);
const parents = (ref: string) => inRemote("rev-list", "--parents", "-n", "1", ref).split(" ").slice(1);
const messageOf = (ref: string) => inRemote("log", "-1", "--format=%B", ref);
const branches = () => inRemote("for-each-ref", "--format=%(refname:short)", "refs/heads/").split("\n");

const openPull = (head: string, title: string, base = "main") => gh.rest.pulls.create({ ...target, head, base, title, body: "" });

interface HttpFailure {
  status: number;
  response?: { data: unknown };
}
async function requestError(promise: Promise<unknown>): Promise<HttpFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ name: "HttpError", status: expect.any(Number) });
  return error as HttpFailure;
}

/** A feature branch with one commit, and main moved on beside it, so every method has real work to do. */
function diverged(): { base: string; head: string } {
  newBranch("feature");
  const head = commit("Add mean", { "stats/mean.py": "def mean(xs):\n    return sum(xs) / len(xs)\n" });
  onBranch("main");
  const base = commit("Add docs", { "docs/index.md": "# Docs\n" });
  push("main", "feature");
  return { base, head };
}

describe("pull requests on a bare remote", () => {
  it("report their branches' real tips, as they move", async () => {
    await start();
    const { base, head } = diverged();
    const created = await openPull("feature", "Add mean");
    expect([created.data.head.sha, created.data.base.sha]).toEqual([head, base]);

    onBranch("feature");
    const moved = commit("Handle empty input", { "stats/mean.py": "def mean(xs):\n    return sum(xs) / len(xs) if xs else 0.0\n" });
    push("feature");
    expect((await gh.rest.pulls.get({ ...target, pull_number: 1 })).data.head.sha).toBe(moved);
    expect((await gh.rest.pulls.list({ ...target })).data[0]!.head.sha).toBe(moved);
    expect(standIn!.violations).toEqual([]);
  });

  it("refuses a head the remote does not have, or one with nothing to merge, with GitHub's 422", async () => {
    await start();
    const missing = await requestError(openPull("no-such-branch", "t"));
    expect(missing.status).toBe(422);
    expect(missing.response?.data).toMatchObject({ errors: [{ resource: "PullRequest", field: "head", code: "invalid" }] });

    newBranch("same");
    push("same");
    const empty = await requestError(openPull("same", "t"));
    expect(empty.response?.data).toMatchObject({ errors: [{ code: "custom", message: "No commits between main and same" }] });
    expect(standIn!.pulls).toEqual([]);
  });
});

describe("merging a pull request", () => {
  it("merges with a merge commit on base and head, in GitHub's words, and shows the PR merged", async () => {
    await start({ now: () => new Date("2025-03-01T10:00:00.250Z") });
    const { base, head } = diverged();
    await openPull("feature", "Add mean");

    const merged = await gh.rest.pulls.merge({ ...target, pull_number: 1 });
    expect(merged.data).toEqual({ sha: tip("main"), merged: true, message: "Pull Request successfully merged" });
    expect(parents("main")).toEqual([base, head]);
    expect(messageOf("main")).toBe("Merge pull request #1 from octo-org/feature\n\nAdd mean");
    expect(inRemote("log", "-1", "--format=%an <%ae> / %cn <%ce>", "main")).toBe(
      "GitHub <noreply@github.com> / GitHub <noreply@github.com>",
    );
    expect(branches()).toEqual(["feature", "main"]); // deleteBranchOnMerge is off by default

    const got = (await gh.rest.pulls.get({ ...target, pull_number: 1 })).data;
    expect(got).toMatchObject({
      state: "closed",
      merged: true,
      merge_commit_sha: merged.data.sha,
      merged_by: { login: "github-actions[bot]" },
    });
    expect([got.merged_at, got.closed_at]).toEqual(["2025-03-01T10:00:00Z", "2025-03-01T10:00:00Z"]);
    expect(inRemote("log", "-1", "--format=%aI %cI", "main")).toBe("2025-03-01T10:00:00+00:00 2025-03-01T10:00:00+00:00"); // the stand-in's clock
    const listed = (await gh.rest.pulls.list({ ...target, state: "closed" })).data;
    expect(listed.map((p) => [p.number, p.merged_at, p.merge_commit_sha])).toEqual([[1, got.merged_at, merged.data.sha]]);
    expect(standIn!.requests.filter((r) => r.operationId === "pulls/merge").map((r) => r.path)).toEqual([
      "/repos/octo-org/stats/pulls/1/merge",
    ]);
    expect(standIn!.violations).toEqual([]);
  });

  it("takes commit_title and commit_message in place of GitHub's defaults", async () => {
    await start();
    diverged();
    await openPull("feature", "Add mean");
    await gh.rest.pulls.merge({ ...target, pull_number: 1, commit_title: "Mean (#1)", commit_message: "Closes #7" });
    expect(messageOf("main")).toBe("Mean (#1)\n\nCloses #7");
  });

  it("squashes into one commit whose only parent is base and whose tree is the merge of base and head", async () => {
    await start();
    const { base } = diverged();
    onBranch("feature");
    const head = commit("Handle empty input", { "stats/mean.py": "def mean(xs):\n    return sum(xs) / len(xs) if xs else 0.0\n" });
    push("feature");
    await openPull("feature", "Add mean");

    const merged = await gh.rest.pulls.merge({ ...target, pull_number: 1, merge_method: "squash", sha: head });
    expect(merged.data.sha).toBe(tip("main"));
    expect(parents("main")).toEqual([base]);
    expect(inRemote("rev-parse", "main^{tree}")).toBe(inRemote("merge-tree", "--write-tree", base, head));
    expect(messageOf("main")).toBe("Add mean (#1)\n\n* Add mean\n\n* Handle empty input");
    expect((await gh.rest.pulls.get({ ...target, pull_number: 1 })).data.merge_commit_sha).toBe(merged.data.sha);
  });

  it("rebases the PR's own commits onto base, dropping its merge commits and changes base already has", async () => {
    await start();
    diverged();
    onBranch("feature");
    git(work, "merge", "--quiet", "--no-ff", "-m", "Merge main into feature", "main");
    commit("Add median", { "stats/median.py": "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n" });
    commit("Add license", { LICENSE: "MIT\n" });
    onBranch("main");
    const licensed = commit("License it", { LICENSE: "MIT\n" }); // the same change: the PR's copy becomes empty and goes
    push("main", "feature");
    await openPull("feature", "Add statistics");

    const merged = await gh.rest.pulls.merge({ ...target, pull_number: 1, merge_method: "rebase", commit_title: "ignored" });
    expect(merged.data.sha).toBe(tip("main"));
    expect(inRemote("log", "--format=%s", "main").split("\n")).toEqual([
      "Add median",
      "Add mean",
      "License it",
      "Add docs",
      "Initial commit",
    ]);
    expect(inRemote("rev-list", "--min-parents=2", "main")).toBe("");
    expect(inRemote("log", "-2", "--format=%an / %cn", "main").split("\n")).toEqual([
      "rpg-forge tests / GitHub",
      "rpg-forge tests / GitHub",
    ]);
    expect(inRemote("rev-parse", "main~2")).toBe(licensed); // replayed on base's tip, not on where the branch began
  });

  it("answers a conflict with 405 for every method and changes nothing", async () => {
    await start();
    newBranch("feature");
    commit("Rename the package", { "README.md": "# statkit\n" });
    onBranch("main");
    const base = commit("Describe the package", { "README.md": "# stats\n\nDescriptive statistics.\n" });
    push("main", "feature");
    await openPull("feature", "Rename");

    const answers = [];
    for (const merge_method of ["merge", "squash", "rebase"] as const) {
      const error = await requestError(gh.rest.pulls.merge({ ...target, pull_number: 1, merge_method }));
      answers.push([error.status, (error.response?.data as { message: string }).message]);
    }
    expect(answers).toEqual([
      [405, "Pull Request is not mergeable"],
      [405, "Pull Request is not mergeable"],
      [405, "This branch can't be rebased"],
    ]);
    expect(tip("main")).toBe(base);
    expect(standIn!.pulls[0]).toMatchObject({ state: "open", merged_at: null, merge_commit_sha: null });
    expect(standIn!.violations).toEqual([]);
  });

  it("answers 409 when the head moved past the sha asked for, and 405 for a closed or merged pull request", async () => {
    await start();
    const { base, head } = diverged();
    await openPull("feature", "Add mean");
    onBranch("feature");
    commit("Handle empty input", { "stats/mean.py": "def mean(xs):\n    return 0.0\n" });
    push("feature");

    const stale = await requestError(gh.rest.pulls.merge({ ...target, pull_number: 1, sha: head }));
    expect([stale.status, (stale.response?.data as { message: string }).message]).toEqual([
      409,
      "Head branch was modified. Review and try the merge again.",
    ]);
    expect(tip("main")).toBe(base);

    await gh.rest.pulls.update({ ...target, pull_number: 1, state: "closed" });
    expect((await requestError(gh.rest.pulls.merge({ ...target, pull_number: 1 }))).status).toBe(405);
    await gh.rest.pulls.update({ ...target, pull_number: 1, state: "open" });
    await gh.rest.pulls.merge({ ...target, pull_number: 1 });
    expect((await requestError(gh.rest.pulls.merge({ ...target, pull_number: 1 }))).status).toBe(405);
    const reopen = await requestError(gh.rest.pulls.update({ ...target, pull_number: 1, state: "open" }));
    expect(reopen.response?.data).toMatchObject({ errors: [{ message: "state cannot be changed. The pull request cannot be reopened." }] });
    expect((await requestError(gh.rest.pulls.merge({ ...target, pull_number: 9 }))).status).toBe(404);
  });

  it("with deleteBranchOnMerge, deletes the head branch and moves a pull request stacked on it to the merged one's base", async () => {
    await start({ deleteBranchOnMerge: true });
    newBranch("rpg/core");
    commit("Add core", { "stats/core.py": "X = 1\n" });
    newBranch("rpg/report", "rpg/core");
    commit("Add report", { "stats/report.py": "from stats.core import X\n" });
    push("rpg/core", "rpg/report");
    await openPull("rpg/core", "Core");
    await openPull("rpg/report", "Report", "rpg/core");

    await gh.rest.pulls.merge({ ...target, pull_number: 1 });
    expect(branches()).toEqual(["main", "rpg/report"]);
    const stacked = (await gh.rest.pulls.get({ ...target, pull_number: 2 })).data;
    expect([stacked.base.ref, stacked.base.sha]).toEqual(["main", tip("main")]);

    await gh.rest.pulls.merge({ ...target, pull_number: 2, merge_method: "squash" });
    expect(branches()).toEqual(["main"]);
    expect(inRemote("log", "--first-parent", "--format=%s", "main").split("\n")).toEqual([
      "Report (#2)",
      "Merge pull request #1 from octo-org/rpg/core",
      "Initial commit",
    ]);
    expect(standIn!.violations).toEqual([]);
  });

  it("leaves no temporary clone behind, merged or refused", async () => {
    await start();
    diverged();
    newBranch("clash", "main~1");
    commit("Clash", { "docs/index.md": "# Other docs\n" });
    push("clash");
    await openPull("feature", "Add mean");
    await openPull("clash", "Clash");
    const scratch = tempDir();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      await gh.rest.pulls.merge({ ...target, pull_number: 1 });
      await requestError(gh.rest.pulls.merge({ ...target, pull_number: 2, merge_method: "rebase" }));
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(readdirSync(scratch)).toEqual([]);
  });
});

describe("without a remote, or with a wrong one", () => {
  it("leaves pulls/merge unimplemented, as before", async () => {
    standIn = await startGitHubStandIn();
    gh = new Octokit({ auth: "test-token", baseUrl: standIn.url, log: quiet });
    await openPull("feature", "t");
    expect((await requestError(gh.rest.pulls.merge({ ...target, pull_number: 1 }))).status).toBe(404);
    expect(standIn.pulls[0]).toMatchObject({ state: "open", merged_at: null });
  });

  it("refuses to start on a path that is no bare repository", async () => {
    await expect(startGitHubStandIn({ remote: work })).rejects.toThrow("must be a bare repository");
    await expect(startGitHubStandIn({ remote: join(work, "nowhere") })).rejects.toThrow("is not a git repository");
  });
});

describe("against the published description", () => {
  let schemaFor: (name: string) => (data: unknown) => unknown[];
  beforeAll(async () => {
    const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
    const spec = JSON.parse(await readFile(file, "utf8")) as { components: { schemas: Record<string, unknown> } };
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ $id: "gh", components: { schemas: spec.components.schemas } });
    schemaFor = (name) => (data) => {
      const validate = ajv.getSchema(`gh#/components/schemas/${name}`)!;
      validate(data);
      return validate.errors ?? [];
    };
  });

  it("answers a merge and a merged pull request with the published response schemas", async () => {
    await start();
    diverged();
    await openPull("feature", "Add mean");
    expect(schemaFor("pull-request-merge-result")((await gh.rest.pulls.merge({ ...target, pull_number: 1 })).data)).toEqual([]);
    expect(schemaFor("pull-request")((await gh.rest.pulls.get({ ...target, pull_number: 1 })).data)).toEqual([]);
    expect(schemaFor("pull-request-simple")((await gh.rest.pulls.list({ ...target, state: "all" })).data[0])).toEqual([]);
  });
});
