import type { Checkpoint } from "../record/checkpoint.js";
import type { Plan } from "../plan/plan.js";
import { redactSecrets } from "../redact.js";
import { CHECK_OUTPUT_LIMIT, renderCheckRun, type CheckAnnotation, type RenderedCheckRun } from "../report/check-run.js";
import { fitToLimit } from "../report/fit-limit.js";
import type { PublishedPullRequest } from "./publish.js";
import type { GitHubClient, RepositoryRef } from "./repository.js";

/** GitHub takes at most 50 annotations per request; more go in further updates of the same check run. */
export const ANNOTATIONS_PER_REQUEST = 50;

/**
 * created: a new check run; updated: ours was edited in place; unchanged: nothing written;
 * replaced: a new one, since ours had annotations that differ (GitHub only ever appends them).
 */
export type CheckRunWrite = "created" | "updated" | "unchanged" | "replaced";

export interface CheckRunsInput {
  octokit: GitHubClient;
  repository: RepositoryRef;
  plan: Plan;
  checkpoint: Checkpoint;
  rpgPath: string;
  /** The run's pull requests; closed ones get no check run. */
  prs: readonly PublishedPullRequest[];
  /** The commit each subgraph's branch holds now (what its PR's head is once the push is seen); a subgraph without one is skipped. */
  heads: ReadonlyMap<string, string>;
  /** The App the token belongs to: only its check runs are looked for. */
  appId?: number | undefined;
}

/** One check run per open pull request of the run, on the commit its branch holds, found again by name and edited only on change. */
export async function publishCheckRuns(input: CheckRunsInput): Promise<Map<string, CheckRunWrite>> {
  const written = new Map<string, CheckRunWrite>();
  for (const pr of input.prs) {
    const headSha = input.heads.get(pr.subgraphId);
    if (pr.closed || headSha === undefined) continue;
    const rendered = renderCheckRun({
      plan: input.plan,
      checkpoint: input.checkpoint,
      subgraphId: pr.subgraphId,
      rpgPath: input.rpgPath,
      dependencyPrs: [],
      baseBranch: pr.base,
      pullRequest: pr.number,
    });
    written.set(pr.subgraphId, await upsertCheckRun(input.octokit, input.repository, headSha, rendered, input.appId));
  }
  return written;
}

/**
 * Creates the check run of this name on the commit, or updates ours (the newest of that name),
 * leaving it untouched when conclusion, output and annotation count are the same. Annotations
 * go 50 per request. GitHub appends the annotations of an update to those there, and none can
 * be removed: when ours has annotations and they differ, a new check run replaces it (GitHub
 * shows the newest run of a name).
 */
export async function upsertCheckRun(
  octokit: GitHubClient,
  repository: RepositoryRef,
  headSha: string,
  given: RenderedCheckRun,
  appId?: number,
): Promise<CheckRunWrite> {
  const { owner, repo } = repository;
  // The summary and annotations quote failure reasons from generated code's tests, which may print a secret.
  const run: RenderedCheckRun = {
    ...given,
    summary: fitToLimit(redactSecrets(given.summary), CHECK_OUTPUT_LIMIT),
    annotations: given.annotations.map((a) => ({ ...a, message: redactSecrets(a.message) })),
  };
  const { data } = await octokit.rest.checks.listForRef({
    owner,
    repo,
    ref: headSha,
    check_name: run.name,
    filter: "latest",
    per_page: 100,
    ...(appId !== undefined ? { app_id: appId } : {}),
  });
  const existing = data.check_runs.find((c) => c.name === run.name && c.head_sha === headSha);
  const output = { title: run.title, summary: run.summary, text: run.text };
  const chunks = chunked(run.annotations);
  const rest = async (id: number) => {
    for (const annotations of chunks.slice(1))
      await octokit.rest.checks.update({ owner, repo, check_run_id: id, output: { ...output, annotations } });
  };

  let replacing = false;
  if (existing) {
    const same =
      existing.status === "completed" &&
      existing.conclusion === run.conclusion &&
      existing.output.title === run.title &&
      (existing.output.summary ?? "") === run.summary &&
      (existing.output.text ?? "") === run.text;
    const count = existing.output.annotations_count;
    if (same && count === run.annotations.length) return "unchanged";
    const sameAnnotations =
      count === 0 ? run.annotations.length === 0 : await hasAnnotations(octokit, repository, existing.id, run.annotations);
    if (count === 0 || sameAnnotations) {
      // Annotations already there stay; only a check run without any gets them now.
      const first = count === 0 ? chunks[0] : undefined;
      await octokit.rest.checks.update({
        owner,
        repo,
        check_run_id: existing.id,
        status: "completed",
        conclusion: run.conclusion,
        output: { ...output, ...(first ? { annotations: first } : {}) },
        actions: run.actions,
      });
      if (count === 0) await rest(existing.id);
      return "updated";
    }
    replacing = true;
  }
  const { data: created } = await octokit.rest.checks.create({
    owner,
    repo,
    name: run.name,
    head_sha: headSha,
    status: "completed",
    conclusion: run.conclusion,
    output: { ...output, ...(chunks[0] ? { annotations: chunks[0] } : {}) },
    actions: run.actions,
  });
  await rest(created.id);
  return replacing ? "replaced" : "created";
}

/** Whether the check run holds exactly these annotations (compared by what a reader sees). */
async function hasAnnotations(
  octokit: GitHubClient,
  repository: RepositoryRef,
  id: number,
  wanted: readonly CheckAnnotation[],
): Promise<boolean> {
  const there = await octokit.paginate(octokit.rest.checks.listAnnotations, { ...repository, check_run_id: id, per_page: 100 });
  const key = (a: Pick<CheckAnnotation, "path" | "start_line" | "title" | "message">) =>
    `${a.path}:${a.start_line}:${a.title ?? ""}:${a.message}`;
  const have = there.map((a) => key({ path: a.path, start_line: a.start_line, title: a.title ?? "", message: a.message ?? "" })).sort();
  const want = wanted.map(key).sort();
  return have.length === want.length && have.every((k, i) => k === want[i]);
}

function chunked(annotations: readonly CheckAnnotation[]): CheckAnnotation[][] {
  const chunks: CheckAnnotation[][] = [];
  for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) chunks.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
  return chunks;
}
