import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import * as core from "@actions/core";
import { progressPrinter } from "../report/progress.js";
import { parseCheckpoint } from "../engine/checkpoint.js";
import { generate } from "../engine/generate.js";
import { rpgNameOf, runBranch, subgraphBranch, subgraphBranchPrefix } from "../engine/history.js";
import { rpgHash } from "../engine/run-id.js";
import { RpgForgeError, formatProblemLine } from "../errors.js";
import { BODY_LIMIT, commentMarker, upsertComment } from "../github/comments.js";
import { publishSubgraphs, type PublishedPullRequest } from "../github/publish.js";
import { createOctokit, type RepositoryRef } from "../github/repository.js";
import { selectProvider } from "../llm/select.js";
import { buildPlan, type Plan } from "../plan/plan.js";
import { loadRpgWithText } from "../rpg/load.js";
import type { RpgIssue } from "../rpg/issues.js";
import { renderMermaid } from "../report/mermaid.js";
import { fitToLimit } from "../report/pull-request.js";
import { checkoutBranch, refsUnder } from "../workspace/git.js";
import { fetchRefs, pushRefs, remoteHasBranch, type RemoteAuth } from "../workspace/remote.js";
import { readInputs, type ActionInputs } from "./inputs.js";

/** Who commits in the runner when the workflow set no identity: GitHub's own bot, as actions do. */
const BOT = { name: "github-actions[bot]", email: "41898282+github-actions[bot]@users.noreply.github.com" };

interface Context {
  workspace: string;
  repository: RepositoryRef;
  apiUrl: string;
  serverUrl: string;
  event: Record<string, unknown>;
  workflowRef: string | undefined;
}

/**
 * The Action: translates the runner's inputs and event into calls of the engine,
 * and the engine's results into git pushes, pull requests, comments, the job
 * summary and outputs. Nothing here decides how a node is generated.
 */
export async function run(): Promise<void> {
  try {
    const inputs = readInputs();
    if (inputs.githubToken) core.setSecret(inputs.githubToken);
    const context = await readContext();
    await runMode(inputs, context);
  } catch (error) {
    if (error instanceof RpgForgeError) {
      core.setFailed(`${formatProblemLine(error.code, error.message, error.at)}${error.hint ? `\n  hint: ${error.hint}` : ""}`);
    } else {
      core.setFailed((error as Error).message);
    }
  }
}

async function readContext(): Promise<Context> {
  const env = process.env;
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/");
  if (!owner || !repo) throw new Error("GITHUB_REPOSITORY is not set to owner/repo; is this running in GitHub Actions?");
  const eventPath = env.GITHUB_EVENT_PATH;
  const event = eventPath ? (JSON.parse(await readFile(eventPath, "utf8")) as Record<string, unknown>) : {};
  return {
    workspace: resolve(env.GITHUB_WORKSPACE ?? process.cwd()),
    repository: { owner, repo },
    apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
    serverUrl: env.GITHUB_SERVER_URL ?? "https://github.com",
    event,
    workflowRef: env.GITHUB_WORKFLOW_REF,
  };
}

async function runMode(inputs: ActionInputs, context: Context): Promise<void> {
  const rpgFile = isAbsolute(inputs.rpgPath) ? inputs.rpgPath : join(context.workspace, inputs.rpgPath);
  const rpgPath = relative(context.workspace, rpgFile);
  const { loaded, text } = await loadRpgWithText(rpgFile);
  if (!loaded.ok) {
    await reportInvalidRpg(loaded.issues, rpgPath, inputs, context);
    return;
  }
  for (const warning of loaded.warnings) core.warning(warning.message, annotation(warning, rpgPath));
  const plan = buildPlan(loaded.value);
  setPlanOutputs(plan);
  if (inputs.mode === "plan") {
    await core.summary.addRaw(planSummary(plan, rpgPath)).write();
    return;
  }

  const token = inputs.githubToken;
  const auth: RemoteAuth | undefined = token ? { serverUrl: context.serverUrl, token } : undefined;
  const rpgName = rpgNameOf(loaded.value, rpgFile);
  const runBranchName = runBranch(rpgName);
  const dir = context.workspace;
  // Reruns build on the branches earlier runs pushed, so each PR's branch moves forward.
  const branchGlob = `refs/heads/${subgraphBranchPrefix(rpgName)}*`;
  await fetchRefs(dir, "origin", [`+${branchGlob}:${branchGlob}`], auth);
  if (inputs.mode !== "generate") {
    if (!(await remoteHasBranch(dir, "origin", runBranchName, auth)))
      throw new Error(`mode ${inputs.mode} continues an earlier run, but origin has no branch ${runBranchName}; run mode generate first`);
    await fetchRefs(dir, "origin", [`+refs/heads/${runBranchName}:refs/heads/${runBranchName}`], auth);
    await checkoutBranch(dir, runBranchName);
  }
  for (const [variable, value] of [
    ["GIT_AUTHOR_NAME", BOT.name],
    ["GIT_AUTHOR_EMAIL", BOT.email],
    ["GIT_COMMITTER_NAME", BOT.name],
    ["GIT_COMMITTER_EMAIL", BOT.email],
  ] as const)
    process.env[variable] ??= value;

  const { provider, model } = await selectProvider({ replay: inputs.replay || undefined, model: inputs.model || undefined }, process.env);
  const write = (line: string): void => void process.stdout.write(line);
  const only = inputs.mode === "generate" ? subgraphNodes(plan, inputs.subgraphs) : inputs.nodes.length > 0 ? inputs.nodes : undefined;
  const started = Date.now();
  const result = await generate({
    rpg: loaded.value,
    rpgPath,
    rpgSha256: rpgHash(text),
    outDir: dir,
    provider,
    model,
    // A checkpoint on the branch (or merged into the base) is continued: passed nodes
    // whose specification is unchanged are kept; a missing one starts afresh.
    mode: "resume",
    only,
    maxIterations: inputs.maxIterations,
    git: true,
    branchPerSubgraph: true,
    onEvent: progressPrinter(write),
    onNotice: (notice) => core.warning(notice),
  });

  const checkpoint = parseCheckpoint(await readFile(result.checkpointPath, "utf8"), result.checkpointPath);
  // A subgraph with no passed node has no branch worth a PR, even one an earlier run pushed.
  const branches = new Map<string, string>();
  const local = new Set(await refsUnder(dir, `refs/heads/${subgraphBranchPrefix(rpgName)}`));
  for (const subgraph of plan.subgraphs) {
    const branch = subgraphBranch(rpgName, subgraph.id);
    if (local.has(branch) && subgraph.nodes.some((id) => checkpoint.nodes[id]?.status === "passed")) branches.set(subgraph.id, branch);
  }
  const tags = await refsUnder(dir, `refs/tags/rpg/${result.runId}/`);
  await pushRefs(
    dir,
    "origin",
    [
      ...[...branches.values()].map((b) => `refs/heads/${b}:refs/heads/${b}`),
      ...tags.map((t) => `refs/tags/${t}:refs/tags/${t}`),
      `+refs/heads/${runBranchName}:refs/heads/${runBranchName}`,
    ],
    auth,
  );

  const baseBranch = inputs.baseBranch || (await defaultBranch(context, token));
  let prs: PublishedPullRequest[] = [];
  if (token) {
    prs = await publishSubgraphs({
      octokit: createOctokit(token, context.apiUrl),
      repository: context.repository,
      plan,
      checkpoint,
      rpgPath,
      runId: result.runId,
      model,
      elapsedMs: Date.now() - started,
      baseBranch,
      branches,
      retryCommand: (nodeId) => `gh workflow run ${workflowFile(context)} -f mode=retry -f rpg-path=${rpgPath} -f nodes=${nodeId}`,
    });
  } else {
    core.warning("no github-token: branches were pushed, but no pull request was opened");
  }

  const c = result.summary.counts;
  const report = await readFile(result.reportPath, "utf8");
  if (token && inputs.issue !== undefined) {
    const marker = commentMarker("run-report", rpgPath);
    const heading = `### rpg-forge: ${c.passed} of ${c.total} nodes pass (\`${rpgPath}\`, run ${result.runId})\n\n`;
    await upsertComment(
      createOctokit(token, context.apiUrl),
      { ...context.repository, issueNumber: inputs.issue },
      marker,
      fitToLimit(heading + prTable(prs, plan) + report, BODY_LIMIT - marker.length - 1),
    );
  }
  core.setOutput("pull-requests", JSON.stringify(Object.fromEntries(prs.map((pr) => [pr.subgraphId, { number: pr.number, url: pr.url }]))));
  core.setOutput("passed", c.passed);
  core.setOutput("failed", c.failed);
  core.setOutput("skipped", c.skipped);
  core.setOutput("branch", runBranchName);
  await core.summary.addRaw(prTable(prs, plan)).addRaw(report).write();
  core.info(`${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped of ${c.total} nodes; ${prs.length} pull request(s)`);
}

/** The nodes of the named subgraphs (matrix mode), or undefined for all. */
function subgraphNodes(plan: Plan, subgraphs: readonly string[]): string[] | undefined {
  if (subgraphs.length === 0) return undefined;
  const unknown = subgraphs.filter((id) => !plan.subgraphs.some((s) => s.id === id));
  if (unknown.length > 0) throw new Error(`input subgraphs names ${unknown.join(", ")}, not a subgraph of the RPG`);
  return plan.subgraphs.filter((s) => subgraphs.includes(s.id)).flatMap((s) => s.nodes);
}

function setPlanOutputs(plan: Plan): void {
  const waves: string[][] = [];
  for (const subgraph of plan.subgraphs) (waves[subgraph.wave] ??= []).push(subgraph.id);
  core.setOutput(
    "plan",
    JSON.stringify({
      order: plan.order,
      subgraphs: plan.subgraphs.map(({ id, name, nodes, dependsOn, wave }) => ({ id, name, nodes, dependsOn, wave })),
    }),
  );
  core.setOutput("waves", JSON.stringify(waves));
  core.setOutput("wave-count", waves.length);
}

function planSummary(plan: Plan, rpgPath: string): string {
  const rows = plan.subgraphs.map((s) => `| ${s.wave + 1} | ${s.id} | ${s.nodes.length} | ${s.dependsOn.join(", ") || "—"} |`);
  return [
    `## rpg-forge plan: ${rpgPath}`,
    "",
    "```mermaid",
    renderMermaid(plan, {}).trimEnd(),
    "```",
    "",
    "| Wave | Subgraph | Nodes | Needs |",
    "|------|----------|-------|-------|",
    ...rows,
    "",
  ].join("\n");
}

function prTable(prs: readonly PublishedPullRequest[], plan: Plan): string {
  if (prs.length === 0) return "";
  const name = (id: string): string => plan.subgraphs.find((s) => s.id === id)?.name ?? id;
  return [
    "## Pull requests",
    "",
    "| Subgraph | Pull request | Base |",
    "|----------|--------------|------|",
    ...prs.map((pr) => `| ${name(pr.subgraphId)} | [#${pr.number}](${pr.url})${pr.created ? " (new)" : ""} | \`${pr.base}\` |`),
    "",
    "",
  ].join("\n");
}

/** Each problem as an annotation on its line of the RPG, a comment where there is an issue or PR, and a failed run. */
async function reportInvalidRpg(issues: readonly RpgIssue[], rpgPath: string, inputs: ActionInputs, context: Context): Promise<void> {
  const errors = issues.filter((i) => i.severity === "error");
  for (const issue of issues) {
    (issue.severity === "error" ? core.error : core.warning)(`${issue.code}: ${issue.message}`, annotation(issue, rpgPath));
  }
  const lines = issues.map((i) => `- \`${formatProblemLine(i.code, i.message, { ...i.at, file: rpgPath })}\``);
  const body = [`### rpg-forge: \`${rpgPath}\` is invalid`, "", `${errors.length} problem(s); nothing was generated.`, "", ...lines].join(
    "\n",
  );
  await core.summary.addRaw(body).write();
  const issueNumber = numberOf(context.event, "issue") ?? numberOf(context.event, "pull_request");
  if (issueNumber !== undefined && inputs.githubToken) {
    const marker = commentMarker("invalid-rpg", rpgPath);
    await upsertComment(
      createOctokit(inputs.githubToken, context.apiUrl),
      { ...context.repository, issueNumber },
      marker,
      body.slice(0, BODY_LIMIT - marker.length - 1),
    );
  }
  core.setFailed(`${rpgPath} is invalid: ${errors.length} problem(s); see the annotations`);
}

function annotation(issue: RpgIssue, rpgPath: string): core.AnnotationProperties {
  return {
    title: issue.code,
    file: rpgPath,
    ...(issue.at.line !== undefined ? { startLine: issue.at.line } : {}),
    ...(issue.at.column !== undefined ? { startColumn: issue.at.column } : {}),
  };
}

function numberOf(event: Record<string, unknown>, key: "issue" | "pull_request"): number | undefined {
  const value = event[key] as { number?: unknown } | undefined;
  return typeof value?.number === "number" ? value.number : undefined;
}

async function defaultBranch(context: Context, token: string): Promise<string> {
  const fromEvent = (context.event.repository as { default_branch?: string } | undefined)?.default_branch;
  if (fromEvent) return fromEvent;
  if (!token) return "main";
  const { data } = await createOctokit(token, context.apiUrl).rest.repos.get({ ...context.repository });
  return data.default_branch;
}

function workflowFile(context: Context): string {
  // GITHUB_WORKFLOW_REF is owner/repo/.github/workflows/<file>@<ref>.
  const match = /\.github\/workflows\/([^@]+)@/.exec(context.workflowRef ?? "");
  return match?.[1] ?? "rpg-generate.yml";
}
