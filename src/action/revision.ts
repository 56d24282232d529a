import { parseCheckpoint, type Checkpoint } from "../engine/checkpoint.js";
import { nodeAtLine, type LineOwner } from "../engine/node-at-line.js";
import { CHECKPOINT_PATH } from "../engine/output-paths.js";
import { readIssueComment, readReview, upsertReviewReplies, type InlineComment } from "../github/review-comments.js";
import { renderReviewReply, revisionOutcome } from "../report/review-replies.js";
import { createOctokit } from "../github/repository.js";
import type { ReviewerNote } from "../llm/requests/node-context.js";
import type { Plan } from "../plan/plan.js";
import type { Rpg } from "../rpg/schema.js";
import { findPython } from "../sandbox/python.js";
import { readFileAt } from "../workspace/git.js";
import type { ActionContext } from "./context.js";
import type { ActionInputs } from "./inputs.js";

/** What a revise run regenerates, with what notes, and for a review which node each inline comment named. */
export interface Revision {
  /** In plan order. */
  nodes: string[];
  notes: Map<string, ReviewerNote[]>;
  comments: { comment: InlineComment; owner: LineOwner }[];
  /** The pull request a review was made on, where the replies go. */
  pullNumber?: number;
}

/** The diff lines a note quotes: the end of the hunk, where the commented line is. */
const EXCERPT_LINES = 12;

/**
 * A revise's nodes and notes: the `nodes` input with the text of the comment that asked
 * (`/rpg revise` and the lines below it), or a review's inline comments, each at the node
 * whose code or tests hold its line in the commit it was made on. Read through the API by
 * the run itself: no person's text passes through the workflow's inputs.
 */
export async function readRevision(
  inputs: ActionInputs,
  context: ActionContext,
  at: { rpg: Rpg; plan: Plan },
  dir: string,
): Promise<Revision> {
  const notes = new Map<string, ReviewerNote[]>();
  const add = (nodeId: string, note: ReviewerNote) => notes.set(nodeId, [...(notes.get(nodeId) ?? []), note]);
  const request = inputs.request;
  if (!request) return { nodes: inPlanOrder(at.plan, inputs.nodes), notes, comments: [] };
  if (!inputs.githubToken) throw new Error(`input request (${request.kind}-${request.id}) needs github-token to read it`);
  const octokit = createOctokit(inputs.githubToken, context.apiUrl);

  if (request.kind === "comment") {
    const { author, body } = await readIssueComment(octokit, context.repository, request.id);
    // The first line is the command; the rest is the person's note.
    const text = body.split(/\r?\n/).slice(1).join("\n").trim();
    if (text) for (const id of inputs.nodes) add(id, { author, text });
    return { nodes: inPlanOrder(at.plan, inputs.nodes), notes, comments: [] };
  }

  if (inputs.issue === undefined)
    throw new Error(`input request (review-${request.id}) needs input issue: the pull request it was made on`);
  const { summary, comments } = await readReview(octokit, context.repository, inputs.issue, request.id);
  const python = await findPython();
  const checkpoints = new Map<string, Promise<Checkpoint | undefined>>();
  const checkpointAt = (commit: string) => {
    if (!checkpoints.has(commit))
      checkpoints.set(
        commit,
        readFileAt(dir, commit, CHECKPOINT_PATH).then((text) => (text === undefined ? undefined : parseCheckpoint(text, CHECKPOINT_PATH))),
      );
    return checkpoints.get(commit)!;
  };
  const located: Revision["comments"] = [];
  for (const comment of comments) {
    const owner = await ownerOf(comment, dir, { rpg: at.rpg, python, checkpoint: await checkpointAt(comment.commitId) });
    located.push({ comment, owner });
    if (owner.nodeId === undefined) continue;
    add(owner.nodeId, {
      author: comment.author,
      text: comment.body,
      path: comment.path,
      line: comment.line,
      excerpt: comment.diffHunk.split("\n").slice(-EXCERPT_LINES).join("\n"),
    });
  }
  const named = new Set([...inputs.nodes, ...located.flatMap(({ owner }) => (owner.nodeId === undefined ? [] : [owner.nodeId]))]);
  // The review's own text is about every node it revises.
  if (summary.body.trim()) for (const id of named) add(id, { author: summary.author, text: summary.body.trim() });
  return { nodes: inPlanOrder(at.plan, [...named]), notes, comments: located, pullNumber: inputs.issue };
}

/**
 * Answers each inline comment of a review with what became of its node in this run (`ran`),
 * or why it named none. Nothing for a revise asked by a comment: the run's report answers it.
 */
export async function replyToReview(
  inputs: ActionInputs,
  context: ActionContext,
  revision: Revision,
  ran: { checkpoint: Checkpoint; runId: string } | undefined,
  commandPrefix: string,
): Promise<void> {
  if (revision.pullNumber === undefined || !inputs.githubToken) return;
  const replies = revision.comments.map(({ comment, owner }) => ({
    commentId: comment.id,
    text: renderReviewReply(
      owner.nodeId === undefined
        ? { why: owner.why }
        : { nodeId: owner.nodeId, outcome: revisionOutcome(ran?.checkpoint.nodes[owner.nodeId], ran?.runId ?? "") },
      commandPrefix,
    ),
  }));
  await upsertReviewReplies(createOctokit(inputs.githubToken, context.apiUrl), context.repository, revision.pullNumber, replies);
}

async function ownerOf(comment: InlineComment, dir: string, lookup: Parameters<typeof nodeAtLine>[0]): Promise<LineOwner> {
  if (comment.line === undefined) return { why: "the comment is on the whole file, not on a line" };
  const source = await readFileAt(dir, comment.commitId, comment.path);
  if (source === undefined)
    return { why: `the commit the comment was made on (${comment.commitId.slice(0, 7)}) is not on rpg-forge's branches any more` };
  return nodeAtLine(lookup, comment.path, source, comment.line);
}

function inPlanOrder(plan: Plan, ids: readonly string[]): string[] {
  const wanted = new Set(ids);
  const known = plan.order.filter((id) => wanted.has(id));
  // An unknown id is kept for the engine to name in its error.
  return [...known, ...ids.filter((id) => !plan.nodes.has(id))];
}
