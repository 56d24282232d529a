import type { Call, Reply } from "./handlers.js";
import { legacyNodeId, type Site } from "./shapes.js";
import type { StandInUser, StoredPull } from "./types.js";

/**
 * Pull request reviews and their inline comments (pulls/get-review, pulls/list-comments-for-review,
 * pulls/list-review-comments, pulls/create-reply-for-review-comment, pulls/update-review-comment),
 * kept in memory. A test submits a review as a person with `addReview`; the code under test reads
 * it and replies through the API, as the token's user.
 */

export interface StoredReview {
  id: number;
  pull_number: number;
  user: StandInUser;
  body: string;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED";
  commit_id: string;
  submitted_at: string;
}

export interface StoredReviewComment {
  id: number;
  pull_number: number;
  review_id: number;
  user: StandInUser;
  body: string;
  path: string;
  line: number | null;
  commit_id: string;
  diff_hunk: string;
  in_reply_to_id?: number;
  created_at: string;
  updated_at: string;
}

export interface NewReview {
  pull: number;
  user: StandInUser;
  body: string;
  state?: StoredReview["state"];
  comments: { path: string; line: number; body: string; diffHunk?: string }[];
}

interface Parts {
  site: Site;
  now: () => string;
  pulls: StoredPull[];
  userJson: (u: StandInUser) => unknown;
  paged: (items: unknown[], call: Call) => Reply;
}

export function createReviews({ site, now, pulls, userJson, paged }: Parts) {
  const reviews: StoredReview[] = [];
  const reviewComments: StoredReviewComment[] = [];
  let lastId = 5_000_000_000;
  const notFound = (call: Call): Reply => ({
    status: 404,
    body: { message: "Not Found", documentation_url: call.operation.docsUrl, status: "404" },
  });
  const pullOf = (n: string | number | undefined) => pulls.find((p) => p.number === Number(n));

  const reviewJson = (r: StoredReview) => ({
    id: r.id,
    node_id: legacyNodeId("PullRequestReview", r.id),
    user: userJson(r.user),
    body: r.body,
    state: r.state,
    html_url: `${site.repoHtml}/pull/${r.pull_number}#pullrequestreview-${r.id}`,
    pull_request_url: `${site.repoApi}/pulls/${r.pull_number}`,
    _links: {
      html: { href: `${site.repoHtml}/pull/${r.pull_number}#pullrequestreview-${r.id}` },
      pull_request: { href: `${site.repoApi}/pulls/${r.pull_number}` },
    },
    submitted_at: r.submitted_at,
    commit_id: r.commit_id,
    author_association: "MEMBER",
  });

  const commentJson = (c: StoredReviewComment) => {
    const url = `${site.repoApi}/pulls/comments/${c.id}`;
    const html = `${site.repoHtml}/pull/${c.pull_number}#discussion_r${c.id}`;
    return {
      url,
      pull_request_review_id: c.review_id,
      id: c.id,
      node_id: legacyNodeId("PullRequestReviewComment", c.id),
      diff_hunk: c.diff_hunk,
      path: c.path,
      position: c.line,
      original_position: c.line,
      commit_id: c.commit_id,
      original_commit_id: c.commit_id,
      ...(c.in_reply_to_id !== undefined ? { in_reply_to_id: c.in_reply_to_id } : {}),
      user: userJson(c.user),
      body: c.body,
      created_at: c.created_at,
      updated_at: c.updated_at,
      html_url: html,
      pull_request_url: `${site.repoApi}/pulls/${c.pull_number}`,
      author_association: "MEMBER",
      _links: { self: { href: url }, html: { href: html }, pull_request: { href: `${site.repoApi}/pulls/${c.pull_number}` } },
      line: c.line,
      original_line: c.line,
      side: "RIGHT",
      original_side: "RIGHT",
      subject_type: "line",
    };
  };

  const handlers: Record<string, (call: Call) => Reply> = {
    "pulls/get-review": (call) => {
      const review = reviews.find((r) => r.id === Number(call.params.review_id) && r.pull_number === Number(call.params.pull_number));
      return review ? { status: 200, body: reviewJson(review) } : notFound(call);
    },
    "pulls/list-comments-for-review": (call) => {
      const id = Number(call.params.review_id);
      if (!reviews.some((r) => r.id === id && r.pull_number === Number(call.params.pull_number))) return notFound(call);
      return paged(reviewComments.filter((c) => c.review_id === id).map(commentJson), call);
    },
    "pulls/list-review-comments": (call) => {
      if (!pullOf(call.params.pull_number)) return notFound(call);
      return paged(reviewComments.filter((c) => c.pull_number === Number(call.params.pull_number)).map(commentJson), call);
    },
    "pulls/create-reply-for-review-comment": (call) => {
      const pull = pullOf(call.params.pull_number);
      const parent = reviewComments.find((c) => c.id === Number(call.params.comment_id) && c.pull_number === pull?.number);
      if (!pull || !parent) return notFound(call);
      const reply: StoredReviewComment = {
        ...parent,
        id: ++lastId,
        user: call.caller.user,
        body: String(call.body.body),
        in_reply_to_id: parent.id,
        created_at: now(),
        updated_at: now(),
      };
      reviewComments.push(reply);
      return { status: 201, body: commentJson(reply) };
    },
    "pulls/update-review-comment": (call) => {
      const comment = reviewComments.find((c) => c.id === Number(call.params.comment_id));
      if (!comment) return notFound(call);
      if (comment.body !== call.body.body) Object.assign(comment, { body: String(call.body.body), updated_at: now() });
      return { status: 200, body: commentJson(comment) };
    },
  };

  /** A person's review of a pull request's head, with inline comments on lines of its files. */
  function addReview(review: NewReview): StoredReview {
    const pull = pullOf(review.pull);
    if (!pull) throw new Error(`no pull request #${review.pull}`);
    const stored: StoredReview = {
      id: ++lastId,
      pull_number: pull.number,
      user: review.user,
      body: review.body,
      state: review.state ?? "CHANGES_REQUESTED",
      commit_id: pull.head.sha,
      submitted_at: now(),
    };
    reviews.push(stored);
    for (const c of review.comments)
      reviewComments.push({
        id: ++lastId,
        pull_number: pull.number,
        review_id: stored.id,
        user: review.user,
        body: c.body,
        path: c.path,
        line: c.line,
        commit_id: pull.head.sha,
        diff_hunk: c.diffHunk ?? `@@ -0,0 +1,${c.line} @@`,
        created_at: now(),
        updated_at: now(),
      });
    return stored;
  }

  return { reviews, reviewComments, handlers, addReview };
}
