import { readFileAtRef } from "../github/file-at-ref.js";
import type { GitHubClient, RepositoryRef } from "../github/repository.js";
import { rpgNameOf, subgraphBranchPrefix } from "../record/branch-names.js";
import { parseRpgText } from "../rpg/load.js";
import { rpgPathOf, type AppConfig } from "./config.js";

/**
 * The graph a pull request branch (`rpg/<name>/<subgraph>`) belongs to, among the configured
 * ones (`rpg`), read from the default branch: the one whose name (its metadata.name, else its
 * folder, else the repository's name, as the runner's checkout names it) makes that prefix.
 * With one graph configured, that one, unread; with none matching, the first.
 */
export async function graphOfBranch(
  octokit: GitHubClient,
  repository: RepositoryRef & { defaultBranch: string },
  config: AppConfig,
  branch: string,
): Promise<string> {
  if (config.rpg.length === 1) return rpgPathOf(config);
  const { owner, repo } = repository;
  for (const path of config.rpg) {
    const text = await readFileAtRef(octokit, { owner, repo }, path, repository.defaultBranch);
    if (text === undefined) continue;
    const loaded = parseRpgText(text, path);
    if (!loaded.ok) continue;
    if (branch.startsWith(subgraphBranchPrefix(rpgNameOf(loaded.value, path, repository.repo)))) return path;
  }
  return rpgPathOf(config);
}
