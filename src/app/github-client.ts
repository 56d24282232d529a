import type { Context } from "probot";

import type { Octokit } from "../github/repository.js";

/**
 * Probot's Octokit for src/github/, which is typed with @octokit/rest's: both have the `rest`
 * methods and `paginate` that src/github/ calls (and nothing else); Probot's lacks only
 * @octokit/rest's deprecated top-level aliases (`octokit.issues`), hence the cast.
 * TODO(issue 15): type src/github/ with `Pick<Octokit, "rest" | "paginate">` and drop this.
 */
export function githubClient(octokit: Context["octokit"]): Octokit {
  return octokit as unknown as Octokit;
}
