import type { GitHubClient, RepositoryRef } from "./repository.js";

/** A file's text on a branch or commit, through the contents API (raw, so files over 1 MB come whole); undefined when it is not there. */
export async function readFileAtRef(
  octokit: GitHubClient,
  repository: RepositoryRef,
  path: string,
  ref: string,
): Promise<string | undefined> {
  try {
    const { data } = await octokit.rest.repos.getContent({ ...repository, path, ref, mediaType: { format: "raw" } });
    return typeof data === "string" ? data : undefined;
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return undefined;
    throw error;
  }
}
