import { describe, expect, it } from "vitest";

import { renderRefusal } from "../../src/app/replies.js";
import { comments, getsPull, github, hasConfig, hasRole, listed, listsComments, mintsToken, recorder, useApp } from "./harness.js";
import { COMMENTER, commentOn } from "./payloads.js";

const app = useApp();

describe("who may not trigger a run", () => {
  it("someone with read access gets one polite refusal, found by its marker and not repeated", async () => {
    mintsToken();
    hasConfig();
    hasRole(COMMENTER, "read");
    listsComments(7, []);
    const refusal = recorder();
    comments(7, refusal);
    getsPull(7, "rpg/statkit/core");

    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry", { pr: 7 }) })).toBe(200);
    const body = `<!-- rpg-forge:refused:${COMMENTER} -->\n${renderRefusal(COMMENTER, "write")}`;
    expect(refusal.bodies).toEqual([{ body }]);
    expect(body).toContain("@Codertocat, thank you for asking. rpg-forge starts runs only for people with write access");

    // Asked again: the refusal is there (by rpg-forge), so nothing is written.
    hasConfig();
    getsPull(7, "rpg/statkit/core");
    hasRole(COMMENTER, "read");
    listsComments(7, [listed(950, 7, body)]);
    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg revise stats.mean", { pr: 7 }) })).toBe(200);
    expect(refusal.bodies).toHaveLength(1);
  });

  it("someone who is no collaborator at all (404 from the permission API) is refused too", async () => {
    mintsToken();
    hasConfig();
    github().get(`/repos/octo/statkit/collaborators/${COMMENTER}/permission`).reply(404, { message: "Not Found" });
    listsComments(1, []);
    const refusal = recorder();
    comments(1, refusal);

    await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry") });

    expect(refusal.bodies).toHaveLength(1);
  });

  it("a bot, an App's comment and a body carrying rpg-forge's marker are ignored before any API call", async () => {
    const bot = commentOn("/rpg retry");
    bot.sender.type = "Bot";
    // Written with a user's token: the author is a person, the App is named in performed_via_github_app.
    const byApp = commentOn("/rpg retry");
    Object.assign(byApp.comment, { performed_via_github_app: { id: 4242, slug: "rpg-forge", name: "rpg-forge" } });
    const ours = commentOn("<!-- rpg-forge:answer:1 -->\n/rpg retry");

    for (const payload of [bot, byApp, ours]) expect(await app.deliver({ event: "issue_comment", payload })).toBe(200);
  });

  it("a fork's pull request never starts a run, even with an rpg/ branch and a maintainer asking", async () => {
    mintsToken();
    hasConfig();
    getsPull(7, "rpg/statkit/core", "someone/statkit");

    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry", { pr: 7 }) })).toBe(200);
  });

  it("a pull request that is not rpg-forge's is not a place for commands", async () => {
    mintsToken();
    hasConfig();
    getsPull(7, "feature/faster-mean");

    expect(await app.deliver({ event: "issue_comment", payload: commentOn("/rpg retry", { pr: 7 }) })).toBe(200);
  });
});
