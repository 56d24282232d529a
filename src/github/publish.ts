import type { Checkpoint } from "../record/checkpoint.js";
import type { Plan, PlannedSubgraph } from "../plan/plan.js";
import {
  renderFailedNodeComment,
  renderPassedAgainComment,
  renderPrBody,
  renderPrTitle,
  renderReportComment,
  type DependencyPr,
  type SubgraphPrInput,
} from "../report/pull-request.js";
import { MARKER_PREFIX, commentMarker, findCommentsByPrefix, upsertComment } from "./comments.js";
import { COMMENT_LIMIT } from "../report/fit-limit.js";
import { findPullRequest, upsertPullRequest } from "./pull-requests.js";
import type { GitHubClient, RepositoryRef } from "./repository.js";

export interface PublishInput {
  octokit: GitHubClient;
  repository: RepositoryRef;
  plan: Plan;
  checkpoint: Checkpoint;
  rpgPath: string;
  model: string;
  /** The branch PRs of subgraphs that need no other subgraph's branch go to. */
  baseBranch: string;
  /** The pushed branch of each subgraph that has one (those with a passed node). */
  branches: ReadonlyMap<string, string>;
  /** The comment command that regenerates a node, shown on its failure comment. */
  retryCommand: (nodeId: string) => string;
  /** Publish only these subgraphs (matrix mode); the PRs of the others are looked up, for links. */
  only?: ReadonlySet<string>;
  /**
   * The subgraphs of the stack, in merge order (decision 0012): each PR targets the branch
   * of the one before it, the first the base branch. Absent in matrix mode, where a PR is
   * stacked on the one subgraph it needs, if just one.
   */
  stack?: readonly string[];
  /** Branches rpg-forge left as they are because a person pushed to them (or to one below): said in a comment on their PR. */
  held?: ReadonlyMap<string, string>;
  /** The issue that asked for the run (the Action's `issue` input): each PR body says "Requested in #N". */
  issue?: number | undefined;
}

export interface PublishedPullRequest {
  subgraphId: string;
  number: number;
  url: string;
  created: boolean;
  /** Closed by a person: left closed, nothing written on it. */
  closed: boolean;
  base: string;
}

const FAILED = "failed-node";
const HELD = "held-branch";

/**
 * One PR per subgraph with a branch, in wave order so that each PR can link the PRs
 * it depends on. A subgraph that needs exactly one other subgraph's branch is stacked
 * on it (its PR shows only its own diff); one that needs several goes to the base
 * branch and links them. On each PR: the report comment, a comment per failed node,
 * and an edit of earlier failure comments whose node passes now. All found by marker.
 */
export async function publishSubgraphs(input: PublishInput): Promise<PublishedPullRequest[]> {
  const published = new Map<string, PublishedPullRequest>();
  for (const subgraph of input.plan.subgraphs) {
    const head = input.branches.get(subgraph.id);
    if (!head) continue;
    if (input.only && !input.only.has(subgraph.id)) {
      const pr = await findPullRequest(input.octokit, input.repository, head);
      if (pr)
        published.set(subgraph.id, {
          subgraphId: subgraph.id,
          number: pr.number,
          url: pr.html_url,
          created: false,
          closed: false,
          base: pr.base.ref,
        });
      continue;
    }
    const base = baseOf(subgraph, input);
    const dependencyPrs: DependencyPr[] = subgraph.dependsOn.flatMap((id) => {
      const pr = published.get(id);
      return pr ? [{ subgraphId: id, number: pr.number, url: pr.url }] : [];
    });
    const render: SubgraphPrInput = {
      plan: input.plan,
      checkpoint: input.checkpoint,
      subgraphId: subgraph.id,
      rpgPath: input.rpgPath,
      dependencyPrs,
      baseBranch: base,
      mergeOrder: input.stack?.map((id) => ({ subgraphId: id, number: published.get(id)?.number })),
      issue: input.issue,
    };
    const pr = await upsertPullRequest(input.octokit, input.repository, {
      head,
      base,
      title: renderPrTitle(render),
      body: renderPrBody(render, COMMENT_LIMIT),
    });
    published.set(subgraph.id, { subgraphId: subgraph.id, ...pr, base });
    if (pr.closed) continue;
    const where = { ...input.repository, issueNumber: pr.number };

    // One listing per PR serves every comment written on it.
    const ours = await findCommentsByPrefix(input.octokit, where, MARKER_PREFIX);
    const heldBecause = input.held?.get(subgraph.id);
    if (heldBecause !== undefined) await upsertComment(input.octokit, where, commentMarker(HELD, subgraph.id), heldBecause, ours);
    const reportMarker = commentMarker("report", subgraph.id);
    await upsertComment(
      input.octokit,
      where,
      reportMarker,
      renderReportComment({ ...render, model: input.model }, COMMENT_LIMIT - reportMarker.length - 1),
      ours,
    );
    for (const nodeId of subgraph.nodes) {
      const status = input.checkpoint.nodes[nodeId]?.status;
      const marker = commentMarker(FAILED, nodeId);
      if (status === "failed") {
        const limit = COMMENT_LIMIT - marker.length - 1;
        await upsertComment(input.octokit, where, marker, renderFailedNodeComment(render, nodeId, input.retryCommand(nodeId), limit), ours);
      } else if (status === "passed" && ours.some((c) => c.body?.startsWith(marker))) {
        await upsertComment(input.octokit, where, marker, renderPassedAgainComment(render, nodeId), ours);
      }
    }
  }
  return [...published.values()].filter((pr) => !input.only || input.only.has(pr.subgraphId));
}

function baseOf(subgraph: PlannedSubgraph, input: PublishInput): string {
  if (input.stack) {
    const below = input.stack[input.stack.indexOf(subgraph.id) - 1];
    return below === undefined ? input.baseBranch : input.branches.get(below)!;
  }
  const upstream = subgraph.dependsOn.filter((id) => input.branches.has(id));
  return subgraph.dependsOn.length === 1 && upstream.length === 1 ? input.branches.get(upstream[0]!)! : input.baseBranch;
}
