import { describe, expect, it } from "vitest";

import { renderRefusal } from "../../src/app/replies.js";
import {
  API,
  OWNER,
  REPO,
  comments,
  dispatches,
  example,
  hasConfig,
  hasRole,
  listed,
  listsComments,
  mintsToken,
  recorder,
  useApp,
  runsWaiting,
} from "./harness.js";

/**
 * Issue 15: changes requested on an rpg-forge pull request start one `revise` run for the
 * review; the run reads the review itself. The answer that says so carries the request's marker,
 * so that a redelivery to a restarted App (whose delivery log is empty) starts nothing again.
 */

const app = useApp();
const REVIEWER = "Codertocat";
const PR = 7;
const RUN_URL = `https://github.com/${OWNER}/${REPO}/actions/runs/5001`;

function review(edit: (p: ReturnType<typeof reviewPayload>) => void = () => {}) {
  const payload = reviewPayload();
  edit(payload);
  return payload;
}

function reviewPayload() {
  return example("pull_request_review.submitted", (p) => {
    p.review.state = "changes_requested";
    p.pull_request.number = PR;
    p.pull_request.head.ref = "rpg/statkit/core";
    p.pull_request.head.repo!.full_name = `${OWNER}/${REPO}`;
    p.sender.login = REVIEWER;
  });
}

const REVIEW_ID = reviewPayload().review.id;
const requestMarker = `<!-- rpg-forge:request:review-${REVIEW_ID} -->`;

/** What a writer's review costs before its dispatch: a token, the config, the reviewer's permission, the comments listing. */
function accepted(listing: ReturnType<typeof listed>[] = []) {
  mintsToken();
  hasConfig();
  hasRole(REVIEWER, "write");
  listsComments(PR, listing);
}

describe("a review that requests changes", () => {
  it("dispatches one revise for the review, reporting to the pull request, and says so with the run's link", async () => {
    accepted();
    const dispatch = recorder();
    runsWaiting();
    dispatches(dispatch, "rpg-generate.yml", 204, {
      workflow_run_id: 5001,
      run_url: `${API}/repos/${OWNER}/${REPO}/actions/runs/5001`,
      html_url: RUN_URL,
    });
    const answer = recorder();
    comments(PR, answer);

    expect(await app.deliver({ event: "pull_request_review", payload: review() })).toBe(200);

    expect(dispatch.bodies).toEqual([
      {
        ref: "main",
        inputs: { "rpg-path": "rpg.json", mode: "revise", request: `review-${REVIEW_ID}`, issue: String(PR) },
      },
    ]);
    const body = (answer.bodies[0] as { body: string }).body;
    expect(body.startsWith(`${requestMarker}\n`)).toBe(true);
    expect(body).toContain(RUN_URL);
    expect(body).toContain(`@${REVIEWER}'s review`);
  });

  it("a redelivery to a restarted App finds the request's answer and dispatches nothing", async () => {
    accepted([listed(950, PR, `${requestMarker}\nrpg-forge started revise`)]);

    expect(await app.deliver({ event: "pull_request_review", payload: review() })).toBe(200);
  });

  it("the same delivery twice to one App is handled once", async () => {
    accepted();
    const dispatch = recorder();
    runsWaiting();
    dispatches(dispatch);
    comments(PR, recorder());

    const payload = review();
    expect(await app.deliver({ event: "pull_request_review", payload, id: "same-delivery" })).toBe(200);
    expect(await app.deliver({ event: "pull_request_review", payload, id: "same-delivery" })).toBe(200);
    expect(dispatch.bodies).toHaveLength(1);
  });

  it("a run already waiting for the one in progress is not replaced: the review is answered with its link", async () => {
    accepted();
    runsWaiting([`https://github.com/${OWNER}/${REPO}/actions/runs/4999`]);
    const answer = recorder();
    comments(PR, answer);

    await app.deliver({ event: "pull_request_review", payload: review() });

    const [{ body }] = answer.bodies as [{ body: string }];
    expect(body.startsWith(`<!-- rpg-forge:waiting:review-${REVIEW_ID} -->\n`)).toBe(true);
    expect(body).toContain(`[a run](https://github.com/${OWNER}/${REPO}/actions/runs/4999) is already waiting for the one in progress`);
  });

  it("a reviewer without write access gets the refusal", async () => {
    mintsToken();
    hasConfig();
    hasRole(REVIEWER, "read");
    listsComments(PR, []);
    const refusal = recorder();
    comments(PR, refusal);

    await app.deliver({ event: "pull_request_review", payload: review() });

    expect(refusal.bodies).toEqual([{ body: `<!-- rpg-forge:refused:${REVIEWER} -->\n${renderRefusal(REVIEWER, "write")}` }]);
  });

  it("an approval, a comment-only review, a bot, a fork and a pull request that is not rpg-forge's start nothing, with no API call", async () => {
    const ignored = [
      review((p) => (p.review.state = "approved")),
      review((p) => (p.review.state = "commented")),
      review((p) => (p.sender.type = "Bot")),
      review((p) => (p.pull_request.head.repo!.full_name = "someone/statkit")),
      review((p) => (p.pull_request.head.ref = "feature/faster-mean")),
    ];
    for (const payload of ignored) expect(await app.deliver({ event: "pull_request_review", payload })).toBe(200);
  });

  it("a bad config is said on the pull request, and nothing starts", async () => {
    mintsToken();
    hasConfig("labl: generate\n");
    listsComments(PR, []);
    const problem = recorder();
    comments(PR, problem);

    await app.deliver({ event: "pull_request_review", payload: review() });

    expect((problem.bodies[0] as { body: string }).body).toMatch(/labl: unknown setting; did you mean label\?/);
  });
});
