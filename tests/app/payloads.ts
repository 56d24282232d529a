import { example, OWNER, REPO } from "./harness.js";

/** The id of the comment in GitHub's issue_comment example. */
export const COMMENT_ID = 492700400;
/** Who wrote it (a person). */
export const COMMENTER = "Codertocat";

/** GitHub's issue_comment.created example with this body, on issue #1 or on pull request `pr`. */
export function commentOn(body: string, on: { pr: number } | { issue: number } = { issue: 1 }) {
  return example("issue_comment.created", (p) => {
    p.comment.body = body;
    if ("issue" in on) p.issue.number = on.issue;
    else {
      p.issue.number = on.pr;
      const url = `https://github.com/${OWNER}/${REPO}/pull/${on.pr}`;
      p.issue.pull_request = { url, html_url: url, diff_url: `${url}.diff`, patch_url: `${url}.patch`, merged_at: null };
    }
  });
}
