import { redactSecrets } from "../redact.js";
import { COMMENT_LIMIT, fitToLimit } from "../report/fit-limit.js";
import type { GitHubClient, RepositoryRef } from "./repository.js";

export interface PullRequestSpec {
  head: string;
  base: string;
  title: string;
  body: string;
}

export interface UpsertedPullRequest {
  number: number;
  url: string;
  created: boolean;
  /** A person closed it (without merging): it stays closed, and nothing is written on it. */
  closed: boolean;
}

/**
 * Opens the pull request for a head branch, or updates the open one (found by its
 * head, which is ours alone): a rerun never opens a second PR for a subgraph. A PR a
 * person closed without merging stays closed. A merged one is history: the branch's
 * new commits get a new PR.
 */
export async function upsertPullRequest(
  octokit: GitHubClient,
  repository: RepositoryRef,
  given: PullRequestSpec,
): Promise<UpsertedPullRequest> {
  const { owner, repo } = repository;
  // The body reports on generated code, which may have printed a secret it found.
  const spec = { ...given, title: redactSecrets(given.title), body: fitToLimit(redactSecrets(given.body), COMMENT_LIMIT) };
  let existing = await findPullRequest(octokit, repository, spec.head);
  if (!existing) {
    const closed = await findPullRequest(octokit, repository, spec.head, "closed");
    if (closed && !closed.merged_at) return { number: closed.number, url: closed.html_url, created: false, closed: true };
    try {
      const { data } = await octokit.rest.pulls.create({
        owner,
        repo,
        head: spec.head,
        base: spec.base,
        title: spec.title,
        body: spec.body,
      });
      return { number: data.number, url: data.html_url, created: true, closed: false };
    } catch (error) {
      // 422: another run opened it between our look and our create; update that one.
      if ((error as { status?: number }).status !== 422) throw error;
      existing = await findPullRequest(octokit, repository, spec.head);
      if (!existing) throw error;
    }
  }
  const changed = existing.title !== spec.title || (existing.body ?? "") !== spec.body || existing.base.ref !== spec.base;
  if (changed)
    await octokit.rest.pulls.update({ owner, repo, pull_number: existing.number, title: spec.title, body: spec.body, base: spec.base });
  return { number: existing.number, url: existing.html_url, created: false, closed: false };
}

/** The newest pull request in this state whose head is this branch of the repository, if any. */
export async function findPullRequest(octokit: GitHubClient, repository: RepositoryRef, head: string, state: "open" | "closed" = "open") {
  const { owner, repo } = repository;
  // `head` must be owner:branch; GitHub ignores a bare branch name and lists every PR.
  const { data } = await octokit.rest.pulls.list({
    owner,
    repo,
    head: `${owner}:${head}`,
    state,
    sort: "created",
    direction: "desc",
    per_page: 10,
  });
  return data.find((pr) => pr.head.ref === head);
}
