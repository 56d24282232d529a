import type { Octokit, RepositoryRef } from "./repository.js";

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
}

/**
 * Opens the pull request for a head branch, or updates the open one (found by its
 * head, which is ours alone): a rerun never opens a second PR for a subgraph.
 */
export async function upsertPullRequest(octokit: Octokit, repository: RepositoryRef, spec: PullRequestSpec): Promise<UpsertedPullRequest> {
  const { owner, repo } = repository;
  const existing = await findPullRequest(octokit, repository, spec.head);
  if (existing) {
    const changed = existing.title !== spec.title || (existing.body ?? "") !== spec.body || existing.base.ref !== spec.base;
    if (changed)
      await octokit.rest.pulls.update({ owner, repo, pull_number: existing.number, title: spec.title, body: spec.body, base: spec.base });
    return { number: existing.number, url: existing.html_url, created: false };
  }
  const { data } = await octokit.rest.pulls.create({ owner, repo, head: spec.head, base: spec.base, title: spec.title, body: spec.body });
  return { number: data.number, url: data.html_url, created: true };
}

/** The open pull request whose head is this branch of the repository, if any. */
export async function findPullRequest(octokit: Octokit, repository: RepositoryRef, head: string) {
  const { owner, repo } = repository;
  // `head` must be owner:branch; GitHub ignores a bare branch name and lists every PR.
  const { data: open } = await octokit.rest.pulls.list({ owner, repo, head: `${owner}:${head}`, state: "open", per_page: 10 });
  return open.find((pr) => pr.head.ref === head);
}
