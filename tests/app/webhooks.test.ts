import { randomUUID } from "node:crypto";

import { describe, expect, it } from "vitest";

import {
  comments,
  dispatches,
  github,
  hasConfig,
  hasRole,
  listsComments,
  mintsToken,
  reactsToComment,
  recorder,
  useApp,
  runsWaiting,
} from "./harness.js";
import { COMMENT_ID, COMMENTER, commentOn } from "./payloads.js";

const app = useApp();

/** A `/rpg retry` on issue #1 from a writer, up to the dispatch: its request's answer is not there yet. */
function retryAccepted() {
  hasConfig();
  hasRole(COMMENTER, "write");
  reactsToComment(COMMENT_ID, "eyes");
  listsComments(1, []);
}

describe("the webhook endpoint", () => {
  it("rejects a delivery signed with another secret, before any API call", async () => {
    const status = await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry"), secret: "not-the-secret" });

    expect(status).toBe(400);
  });

  it("dispatches a redelivered webhook (same X-GitHub-Delivery) once", async () => {
    mintsToken();
    retryAccepted();
    const dispatch = recorder();
    runsWaiting();
    dispatches(dispatch);
    comments(1, recorder());
    reactsToComment(COMMENT_ID, "rocket");
    const id = randomUUID();

    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry"), id })).toBe(200);
    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry"), id })).toBe(200);

    expect(dispatch.bodies).toHaveLength(1);
  });

  it("handles a redelivery again when the first delivery failed, so that GitHub's redelivery is a retry", async () => {
    mintsToken();
    retryAccepted();
    runsWaiting();
    github().post("/repos/octo/statkit/actions/workflows/rpg-generate.yml/dispatches").reply(502, { message: "Bad Gateway" });
    const id = randomUUID();
    // Probot answers with the failed API call's status: GitHub marks the delivery failed.
    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry"), id })).toBe(502);

    retryAccepted();
    const dispatch = recorder();
    runsWaiting();
    dispatches(dispatch);
    comments(1, recorder());
    reactsToComment(COMMENT_ID, "rocket");
    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry"), id })).toBe(200);

    expect(dispatch.bodies).toHaveLength(1);
  });
});
