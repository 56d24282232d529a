import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Octokit } from "@octokit/rest";
import { Ajv } from "ajv";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readIssueComment, readReview, upsertReviewReplies } from "../../src/github/review-comments.js";
import { startGitHubStandIn, type GitHubStandIn } from "../helpers/github-stand-in.js";

/** Reading a review and answering its comments, against the stand-in (requests checked against GitHub's REST description). */

const REPO = { owner: "octo", repo: "statkit" };
const PERSON = { login: "ada", id: 7, type: "User" as const };

describe("review comments", () => {
  let standIn: GitHubStandIn;
  let octokit: Octokit;
  let pull: number;

  beforeEach(async () => {
    standIn = await startGitHubStandIn({ owner: "octo", repo: "statkit" });
    octokit = new Octokit({ auth: "ghs_test", baseUrl: standIn.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
    const { data } = await octokit.rest.pulls.create({ ...REPO, head: "rpg/statkit/core", base: "main", title: "core" });
    pull = data.number;
  });
  afterEach(async () => {
    expect(standIn.violations).toEqual([]);
    await standIn.close();
  });

  it("reads a review's summary and its inline comments, not the replies in their threads", async () => {
    const review = standIn.addReview({
      pull,
      user: PERSON,
      body: "A few things.",
      comments: [
        { path: "src/statkit/stats.py", line: 12, body: "Use statistics.fmean.", diffHunk: "@@ -0,0 +1,12 @@\n+def mean(xs):" },
        { path: "tests/test_stats.py", line: 3, body: "Test the empty list." },
      ],
    });
    await upsertReviewReplies(octokit, REPO, pull, [{ commentId: standIn.reviewComments[0]!.id, text: "noted" }]);

    const read = await readReview(octokit, REPO, pull, review.id);

    expect(read.summary).toEqual({ author: "ada", body: "A few things." });
    expect(read.comments.map(({ path, line, body, author }) => ({ path, line, body, author }))).toEqual([
      { path: "src/statkit/stats.py", line: 12, body: "Use statistics.fmean.", author: "ada" },
      { path: "tests/test_stats.py", line: 3, body: "Test the empty list.", author: "ada" },
    ]);
    expect(read.comments[0]!.diffHunk).toContain("+def mean(xs):");
    expect(read.comments[0]!.commitId).toBe(standIn.pulls[0]!.head.sha);
  });

  it("replies to each comment once: a rerun edits its reply, and a person's quote of the marker is left alone", async () => {
    standIn.addReview({
      pull,
      user: PERSON,
      body: "",
      comments: [
        { path: "a.py", line: 1, body: "x" },
        { path: "b.py", line: 2, body: "y" },
      ],
    });
    const [a, b] = standIn.reviewComments;
    await upsertReviewReplies(octokit, REPO, pull, [
      { commentId: a!.id, text: "first" },
      { commentId: b!.id, text: "second" },
    ]);
    await upsertReviewReplies(octokit, REPO, pull, [
      { commentId: a!.id, text: "first, again" },
      { commentId: b!.id, text: "second" },
    ]);

    const replies = standIn.reviewComments.filter((c) => c.in_reply_to_id !== undefined);
    expect(replies.map((r) => [r.in_reply_to_id, r.body])).toEqual([
      [a!.id, `<!-- rpg-forge:review-reply:${a!.id} -->\nfirst, again`],
      [b!.id, `<!-- rpg-forge:review-reply:${b!.id} -->\nsecond`],
    ]);
    expect(standIn.requests.filter((r) => r.operationId === "pulls/update-review-comment")).toHaveLength(1);
  });

  it("reads a comment command's text", async () => {
    const number = standIn.addIssue({ title: "generate" });
    const comment = standIn.addComment({ issue_number: number, body: "/rpg revise stats.mean\nUse fmean.", user: PERSON });
    expect(await readIssueComment(octokit, REPO, comment.id)).toEqual({ author: "ada", body: "/rpg revise stats.mean\nUse fmean." });
  });

  it("answers in the shapes of GitHub's REST description", async () => {
    const review = standIn.addReview({ pull, user: PERSON, body: "b", comments: [{ path: "a.py", line: 1, body: "x" }] });
    const file = fileURLToPath(new URL("../../node_modules/@octokit/openapi/generated/api.github.com.json", import.meta.url));
    const spec = JSON.parse(await readFile(file, "utf8")) as { components: { schemas: Record<string, unknown> } };
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ $id: "gh", components: { schemas: spec.components.schemas } });
    const reviewSchema = ajv.getSchema("gh#/components/schemas/pull-request-review")!;
    const commentSchema = ajv.getSchema("gh#/components/schemas/pull-request-review-comment")!;
    const reviewCommentSchema = ajv.getSchema("gh#/components/schemas/review-comment")!;

    const { data: got } = await octokit.rest.pulls.getReview({ ...REPO, pull_number: pull, review_id: review.id });
    const { data: listed } = await octokit.rest.pulls.listCommentsForReview({ ...REPO, pull_number: pull, review_id: review.id });
    const { data: all } = await octokit.rest.pulls.listReviewComments({ ...REPO, pull_number: pull });

    expect([reviewSchema(got), reviewSchema.errors]).toEqual([true, null]);
    expect(listed.map((c) => [reviewCommentSchema(c), reviewCommentSchema.errors])).toEqual([[true, null]]);
    expect(all.map((c) => [commentSchema(c), commentSchema.errors])).toEqual([[true, null]]);
  });
});
