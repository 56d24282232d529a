import { createHash } from "node:crypto";
import { createApps, type Caller } from "./apps.js";
import { createChecks, GITHUB_ACTIONS_APP } from "./checks.js";
import type { JsonObject, Operation } from "./description.js";
import { mergePull } from "./merge.js";
import { createReviews } from "./reviews.js";
import type { Remote } from "./remote.js";
import { createShapes, legacyNodeId, type Site } from "./shapes.js";
import type { BranchRef, GitHubStandIn, StandInApp, StandInUser, StoredComment, StoredIssue, StoredPull } from "./types.js";

/**
 * The repository's pull requests, issues and comments, kept in memory, and the handler of each implemented
 * operation over them. Requests reach a handler only once they match GitHub's REST description and this repository.
 */

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Call {
  params: Record<string, string>;
  query: Record<string, string>;
  body: JsonObject;
  operation: Operation;
  path: string;
  /** Who the request's token acts as. */
  caller: Caller;
}

export const DOCS = "https://docs.github.com/rest";

export const notFound = (docsUrl = DOCS): Reply => ({
  status: 404,
  body: { message: "Not Found", documentation_url: docsUrl, status: "404" },
});
const validationFailed = (operation: Operation, errors: JsonObject[]): Reply => ({
  status: 422,
  body: { message: "Validation Failed", errors, documentation_url: operation.docsUrl, status: "422" },
});

export type RepositoryState = Pick<
  GitHubStandIn,
  "pulls" | "issues" | "comments" | "checkRuns" | "reviewComments" | "addIssue" | "addComment" | "addReview" | "installationTokens"
> & {
  /** By operationId; an operation without one answers 404. */
  handlers: Record<string, (call: Call) => Reply>;
  /** Who a request with this authorization header acts as, or GitHub's 401 for it. */
  callerOf(operationId: string, authorization: string): Caller | Reply;
};

export interface GitSide {
  /** Undefined: shas are made up from branch names and pulls/merge is not implemented. */
  remote?: Remote;
  deleteBranchOnMerge: boolean;
  /** The App the token belongs to; GitHub Actions' when undefined. With a public key, only the tokens it mints are its (apps.ts). */
  app?: StandInApp | undefined;
  /** The clock in milliseconds, for JWTs and installation tokens. Default the real one. */
  clock?: () => number;
}

/** `now` gives GitHub's timestamps: ISO 8601 without milliseconds. */
export function createRepositoryState(
  site: Site,
  now: () => string,
  { remote, deleteBranchOnMerge, app, clock = Date.now }: GitSide = { deleteBranchOnMerge: false },
): RepositoryState {
  const { api, owner, repoApi, repoHtml, actor } = site;
  const pulls: StoredPull[] = [];
  const issues: StoredIssue[] = [];
  const comments: StoredComment[] = [];
  let lastNumber = 0;
  let lastCommentId = 2_000_000_000;
  const { repoJson, pullJson, commentJson, userJson, integrationJson } = createShapes(site, { pulls, issues, comments });
  // Each further area keeps its own state and handlers in its own file, merged in below.
  const checks = createChecks({ site, now, pulls, integrationJson });
  const reviews = createReviews({ site, now, pulls, userJson, paged });
  const publicKey = app?.publicKey;
  const apps = app && publicKey !== undefined ? createApps({ site, clock, app: { ...app, publicKey }, userJson }) : undefined;
  // Without the App's key every token is the one the options describe; with it, a token the App did not mint is GITHUB_TOKEN.
  const tokenCaller: Caller = { user: actor, app: (apps ? undefined : app) ?? GITHUB_ACTIONS_APP };

  const headLabel = (ref: string) => `${owner}:${ref}`;
  const branch = (ref: string, tips?: Map<string, string>): BranchRef => ({
    ref,
    label: headLabel(ref),
    sha: tips?.get(ref) ?? createHash("sha1").update(ref).digest("hex"),
  });
  /**
   * Moves open pull requests to their branches' current tips. A closed one keeps the shas it was closed with,
   * and so does one whose branch is gone, as on GitHub.
   */
  const refresh = (list: StoredPull[]): Map<string, string> => {
    const tips = remote?.tips() ?? new Map<string, string>();
    for (const p of list.filter((o) => o.state === "open")) {
      p.head.sha = tips.get(p.head.ref) ?? p.head.sha;
      p.base.sha = tips.get(p.base.ref) ?? p.base.sha;
    }
    return tips;
  };
  const pullByNumber = (value: string | undefined) => pulls.find((p) => p.number === Number(value));
  const issueExists = (n: number) => pulls.some((p) => p.number === n) || issues.some((i) => i.number === n);
  const commentById = (value: string | undefined) => comments.find((c) => c.id === Number(value));
  const duplicateOf = (p: { number?: number; head: string; base: string }) =>
    pulls.find((o) => o.state === "open" && o.number !== p.number && o.head.ref === p.head && o.base.ref === p.base);
  const alreadyExists = (operation: Operation, head: string) =>
    validationFailed(operation, [
      { resource: "PullRequest", code: "custom", message: `A pull request already exists for ${headLabel(head)}.` },
    ]);
  const invalid = (operation: Operation, field: "head" | "base") =>
    validationFailed(operation, [{ resource: "PullRequest", field, code: "invalid" }]);
  const noCommitsBetween = (operation: Operation, base: string, head: string) =>
    validationFailed(operation, [{ resource: "PullRequest", code: "custom", message: `No commits between ${base} and ${head}` }]);

  function addComment(comment: { issue_number: number; body: string; user?: StandInUser; app?: StandInApp | undefined }): StoredComment {
    if (!issueExists(comment.issue_number)) throw new Error(`stand-in: there is no issue or pull request #${comment.issue_number}`);
    const id = ++lastCommentId;
    const kind = pulls.some((p) => p.number === comment.issue_number) ? "pull" : "issues";
    const stamp = now();
    const stored: StoredComment = {
      id,
      node_id: legacyNodeId("IssueComment", id),
      issue_number: comment.issue_number,
      body: comment.body,
      html_url: `${repoHtml}/${kind}/${comment.issue_number}#issuecomment-${id}`,
      url: `${repoApi}/issues/comments/${id}`,
      issue_url: `${repoApi}/issues/${comment.issue_number}`,
      user: comment.user ?? actor,
      app: comment.app,
      created_at: stamp,
      updated_at: stamp,
    };
    comments.push(stored);
    return stored;
  }

  /** Pages as GitHub does: per_page up to 100 (default 30) and a Link header to the neighbouring pages. */
  function paged(items: unknown[], call: Call): Reply {
    const perPage = Math.min(Math.max(Number(call.query.per_page ?? 30) || 30, 1), 100);
    const page = Math.max(Number(call.query.page ?? 1) || 1, 1);
    const last = Math.max(Math.ceil(items.length / perPage), 1);
    const at = (n: number) => `<${api}${call.path}?${new URLSearchParams({ ...call.query, page: String(n) })}>`;
    const rels = [
      page > 1 && `${at(page - 1)}; rel="prev"`,
      page < last && `${at(page + 1)}; rel="next"`,
      page < last && `${at(last)}; rel="last"`,
      page > 1 && `${at(1)}; rel="first"`,
    ].filter(Boolean);
    return { status: 200, body: items.slice((page - 1) * perPage, page * perPage), headers: rels.length ? { link: rels.join(", ") } : {} };
  }

  const handlers: Record<string, (call: Call) => Reply> = {
    "repos/get": () => ({ status: 200, body: repoJson() }),

    "pulls/list": (call) => {
      const { state = "open", head, base, sort = "created", direction } = call.query;
      // GitHub silently ignores a head filter without the "owner:" prefix and lists every PR.
      const [headOwner, headRef] = head?.includes(":") ? [head.slice(0, head.indexOf(":")), head.slice(head.indexOf(":") + 1)] : [];
      refresh(pulls);
      const key = (p: StoredPull) => (sort === "updated" ? p.updated_at : p.created_at);
      const sign = (direction ?? (sort === "created" ? "desc" : "asc")) === "asc" ? 1 : -1;
      const found = pulls
        .filter((p) => state === "all" || p.state === state)
        .filter((p) => headRef === undefined || (headOwner?.toLowerCase() === owner.toLowerCase() && p.head.ref === headRef))
        .filter((p) => base === undefined || p.base.ref === base)
        .sort((a, b) => sign * (key(a).localeCompare(key(b)) || a.number - b.number));
      return paged(
        found.map((p) => pullJson(p, false)),
        call,
      );
    },

    "pulls/create": (call) => {
      const { title, body, draft } = call.body as { title?: string; body?: string; draft?: boolean };
      const rawHead = String(call.body.head);
      const base = String(call.body.base);
      const colon = rawHead.indexOf(":");
      if (colon >= 0 && rawHead.slice(0, colon).toLowerCase() !== owner.toLowerCase()) return invalid(call.operation, "head");
      const head = rawHead.slice(colon + 1);
      if (call.body.issue !== undefined) {
        return validationFailed(call.operation, [
          { resource: "PullRequest", code: "custom", message: "stand-in: issue conversion is not implemented" },
        ]);
      }
      if (title === undefined)
        return validationFailed(call.operation, [{ resource: "PullRequest", field: "title", code: "missing_field" }]);
      if (head === base) return noCommitsBetween(call.operation, base, head);
      const tips = remote?.tips();
      if (remote && tips) {
        const [headSha, baseSha] = [tips.get(head), tips.get(base)];
        if (!headSha) return invalid(call.operation, "head");
        if (!baseSha) return invalid(call.operation, "base");
        if (remote.contains(baseSha, headSha)) return noCommitsBetween(call.operation, base, head);
      }
      if (duplicateOf({ head, base })) return alreadyExists(call.operation, head);
      const number = ++lastNumber;
      const id = 1_500_000_000 + number;
      const stamp = now();
      const pull: StoredPull = {
        id,
        node_id: legacyNodeId("PullRequest", id),
        number,
        title,
        body: body ?? null,
        state: "open",
        draft: draft ?? false,
        head: branch(head, tips),
        base: branch(base, tips),
        html_url: `${repoHtml}/pull/${number}`,
        url: `${repoApi}/pulls/${number}`,
        user: call.caller.user,
        created_at: stamp,
        updated_at: stamp,
        closed_at: null,
        merged_at: null,
        merge_commit_sha: null,
        merged_by: null,
      };
      pulls.push(pull);
      return { status: 201, body: pullJson(pull, true), headers: { location: pull.url } };
    },

    "pulls/get": (call) => {
      const pull = pullByNumber(call.params.pull_number);
      if (!pull) return notFound(call.operation.docsUrl);
      refresh([pull]);
      return { status: 200, body: pullJson(pull, true) };
    },

    "pulls/update": (call) => {
      const pull = pullByNumber(call.params.pull_number);
      if (!pull) return notFound(call.operation.docsUrl);
      const change = call.body as { title?: string; body?: string; base?: string; state?: "open" | "closed" };
      if (change.state === "open" && pull.merged_at !== null) {
        return validationFailed(call.operation, [
          {
            resource: "PullRequest",
            code: "custom",
            field: "state",
            message: "state cannot be changed. The pull request cannot be reopened.",
          },
        ]);
      }
      if (
        change.state === "open" &&
        pull.state === "closed" &&
        duplicateOf({ number: pull.number, head: pull.head.ref, base: change.base ?? pull.base.ref })
      ) {
        return alreadyExists(call.operation, pull.head.ref);
      }
      const tips = refresh([pull]);
      if (remote && change.base !== undefined && !tips.has(change.base)) return invalid(call.operation, "base");
      const before = JSON.stringify(pull);
      if (change.title !== undefined) pull.title = change.title;
      if (change.body !== undefined) pull.body = change.body;
      if (change.base !== undefined) pull.base = branch(change.base, tips);
      if (change.state !== undefined && change.state !== pull.state) {
        pull.state = change.state;
        pull.closed_at = change.state === "closed" ? now() : null;
      }
      if (JSON.stringify(pull) !== before) pull.updated_at = now();
      return { status: 200, body: pullJson(pull, true) };
    },

    ...(remote && {
      "pulls/merge": (call: Call) => {
        const pull = pullByNumber(call.params.pull_number);
        if (!pull) return notFound(call.operation.docsUrl);
        return mergePull({ remote, owner, actor: call.caller.user, now, deleteBranchOnMerge, pulls, refresh, branch }, pull, call);
      },
    }),

    "issues/list-comments": (call) => {
      const number = Number(call.params.issue_number);
      if (!issueExists(number)) return notFound(call.operation.docsUrl);
      const since = call.query.since;
      const found = comments
        .filter((c) => c.issue_number === number && (since === undefined || c.updated_at >= since))
        .sort((a, b) => a.id - b.id);
      return paged(found.map(commentJson), call);
    },

    "issues/create-comment": (call) => {
      const number = Number(call.params.issue_number);
      if (!issueExists(number)) return notFound(call.operation.docsUrl);
      const comment = addComment({
        issue_number: number,
        body: String(call.body.body),
        user: call.caller.user,
        app: call.caller.installation,
      });
      return { status: 201, body: commentJson(comment), headers: { location: comment.url } };
    },

    "issues/get-comment": (call) => {
      const comment = commentById(call.params.comment_id);
      return comment ? { status: 200, body: commentJson(comment) } : notFound(call.operation.docsUrl);
    },

    "issues/update-comment": (call) => {
      const comment = commentById(call.params.comment_id);
      if (!comment) return notFound(call.operation.docsUrl);
      if (comment.body !== call.body.body) {
        comment.body = String(call.body.body);
        comment.updated_at = now();
      }
      return { status: 200, body: commentJson(comment) };
    },

    "issues/delete-comment": (call) => {
      const comment = commentById(call.params.comment_id);
      if (!comment) return notFound(call.operation.docsUrl);
      comments.splice(comments.indexOf(comment), 1);
      return { status: 204 };
    },

    ...checks.handlers,
    ...reviews.handlers,
    ...apps?.handlers,
  };

  return {
    pulls,
    issues,
    comments,
    checkRuns: checks.checkRuns,
    reviewComments: reviews.reviewComments,
    addReview: reviews.addReview,
    installationTokens: apps?.minted ?? [],
    handlers,
    callerOf: (operationId, authorization) => apps?.callerOf(operationId, authorization, tokenCaller) ?? tokenCaller,
    addIssue: ({ title, body, labels }) => {
      const number = ++lastNumber;
      const id = 1_000_000_000 + number;
      issues.push({ id, node_id: legacyNodeId("Issue", id), number, title, body: body ?? null, labels: labels ?? [], state: "open" });
      return number;
    },
    addComment,
  };
}
