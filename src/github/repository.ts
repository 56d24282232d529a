import { Octokit } from "@octokit/rest";

/** The repository an Action run writes to. */
export interface RepositoryRef {
  owner: string;
  repo: string;
}

/** An Octokit for GitHub or GHES (GITHUB_API_URL); retries and throttling are left to the caller's rerun. */
export function createOctokit(token: string, baseUrl: string): Octokit {
  return new Octokit({ auth: token, baseUrl: baseUrl.replace(/\/+$/, ""), userAgent: "rpg-forge" });
}

export type { Octokit };

/**
 * What src/github/ calls of a client: the REST methods and `paginate`. Both the Action's
 * @octokit/rest and Probot's context.octokit are one.
 */
export type GitHubClient = Pick<Octokit, "rest" | "paginate">;
