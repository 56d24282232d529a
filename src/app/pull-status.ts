import { parseCheckpoint } from "../record/checkpoint.js";
import { CHECKPOINT_PATH, EXPORTED_RPG_PATH } from "../engine/output-paths.js";
import { readFileAtRef } from "../github/file-at-ref.js";
import type { GitHubClient, RepositoryRef } from "../github/repository.js";
import { buildPlan } from "../plan/plan.js";
import { subgraphOfPrBranch } from "../record/branch-names.js";
import { renderPullRequestStatus } from "../report/status.js";
import { parseRpgText } from "../rpg/load.js";

/**
 * The node table of an rpg-forge pull request, read from its branch: the graph rpg-forge exported
 * there and the checkpoint of that state. Data only, never run; undefined when the branch holds
 * neither (a first run still going) or they do not read, and the answer falls back to the report's link.
 */
export async function pullRequestStatus(
  octokit: GitHubClient,
  repository: RepositoryRef,
  head: string,
  rpgPath: string,
  reportUrl: string | undefined,
): Promise<string | undefined> {
  const [rpgText, checkpointText] = await Promise.all([
    readFileAtRef(octokit, repository, EXPORTED_RPG_PATH, head),
    readFileAtRef(octokit, repository, CHECKPOINT_PATH, head),
  ]);
  if (rpgText === undefined || checkpointText === undefined) return undefined;
  const loaded = parseRpgText(rpgText, EXPORTED_RPG_PATH);
  if (!loaded.ok) return undefined;
  let checkpoint;
  try {
    checkpoint = parseCheckpoint(checkpointText, CHECKPOINT_PATH);
  } catch {
    return undefined;
  }
  const plan = buildPlan(loaded.value);
  const subgraphId = subgraphOfPrBranch(
    head,
    plan.subgraphs.map((s) => s.id),
  );
  if (subgraphId === undefined) return undefined;
  return renderPullRequestStatus({ plan, checkpoint, subgraphId, rpgPath, branch: head, reportUrl });
}
