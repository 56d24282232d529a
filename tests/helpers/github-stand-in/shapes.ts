import type { BranchRef, StandInApp, StandInUser, StoredComment, StoredIssue, StoredPull } from "./types.js";

/**
 * Renders the stored repository, pull requests and comments into the response shapes of GitHub's REST
 * description: every field the response schemas require, see the shape test in github-stand-in.test.ts.
 */

/** Where the stand-in's repository lives and whose token it serves: what rendered URLs and authors are built from. */
export interface Site {
  /** The API root, e.g. http://127.0.0.1:PORT. */
  api: string;
  owner: string;
  repo: string;
  /** The repository's API URL, `${api}/repos/${owner}/${repo}`. */
  repoApi: string;
  /** The repository's web URL, `https://github.com/${owner}/${repo}`. */
  repoHtml: string;
  actor: StandInUser;
}

/** The live state; read at render time, so edits by tests show. */
export interface Stored {
  pulls: StoredPull[];
  issues: StoredIssue[];
  comments: StoredComment[];
}

const REPO_LINKS: Record<string, string> = {
  archive_url: "/{archive_format}{/ref}",
  assignees_url: "/assignees{/user}",
  blobs_url: "/git/blobs{/sha}",
  branches_url: "/branches{/branch}",
  collaborators_url: "/collaborators{/collaborator}",
  comments_url: "/comments{/number}",
  commits_url: "/commits{/sha}",
  compare_url: "/compare/{base}...{head}",
  contents_url: "/contents/{+path}",
  contributors_url: "/contributors",
  deployments_url: "/deployments",
  downloads_url: "/downloads",
  events_url: "/events",
  forks_url: "/forks",
  git_commits_url: "/git/commits{/sha}",
  git_refs_url: "/git/refs{/sha}",
  git_tags_url: "/git/tags{/sha}",
  hooks_url: "/hooks",
  issue_comment_url: "/issues/comments{/number}",
  issue_events_url: "/issues/events{/number}",
  issues_url: "/issues{/number}",
  keys_url: "/keys{/key_id}",
  labels_url: "/labels{/name}",
  languages_url: "/languages",
  merges_url: "/merges",
  milestones_url: "/milestones{/number}",
  notifications_url: "/notifications{?since,all,participating}",
  pulls_url: "/pulls{/number}",
  releases_url: "/releases{/id}",
  stargazers_url: "/stargazers",
  statuses_url: "/statuses/{sha}",
  subscribers_url: "/subscribers",
  subscription_url: "/subscription",
  tags_url: "/tags",
  teams_url: "/teams",
  trees_url: "/git/trees{/sha}",
};

/** The renderers of the repository (repos/get), pull requests (pulls/*) and issue comments (issues/*-comment*). */
export function createShapes({ api, owner, repo, repoApi, repoHtml, actor }: Site, { pulls, issues, comments }: Stored) {
  const ownerUser: StandInUser = { login: owner, id: 9_000_001, type: "Organization" };
  const userJson = (u: StandInUser) => {
    const at = `${api}/users/${encodeURIComponent(u.login)}`;
    const html = u.type === "Bot" ? `https://github.com/apps/${u.login.replace(/\[bot\]$/, "")}` : `https://github.com/${u.login}`;
    return {
      login: u.login,
      id: u.id,
      node_id: legacyNodeId(u.type === "Bot" ? "Bot" : u.type === "Organization" ? "Organization" : "User", u.id),
      avatar_url: `https://avatars.githubusercontent.com/u/${u.id}?v=4`,
      gravatar_id: "",
      url: at,
      html_url: html,
      followers_url: `${at}/followers`,
      following_url: `${at}/following{/other_user}`,
      gists_url: `${at}/gists{/gist_id}`,
      starred_url: `${at}/starred{/owner}{/repo}`,
      subscriptions_url: `${at}/subscriptions`,
      organizations_url: `${at}/orgs`,
      repos_url: `${at}/repos`,
      events_url: `${at}/events{/privacy}`,
      received_events_url: `${at}/received_events`,
      type: u.type,
      user_view_type: "public",
      site_admin: false,
    };
  };
  const openCount = () => issues.filter((i) => i.state === "open").length + pulls.filter((p) => p.state === "open").length;
  // One shape for repos/get (full-repository) and a PR's head.repo/base.repo (repository): the union of both.
  const repoJson = () => ({
    id: 7_000_001,
    node_id: legacyNodeId("Repository", 7_000_001),
    name: repo,
    full_name: `${owner}/${repo}`,
    owner: userJson(ownerUser),
    private: false,
    html_url: repoHtml,
    description: null,
    fork: false,
    url: repoApi,
    ...Object.fromEntries(Object.entries(REPO_LINKS).map(([k, suffix]) => [k, `${repoApi}${suffix}`])),
    git_url: `git://github.com/${owner}/${repo}.git`,
    ssh_url: `git@github.com:${owner}/${repo}.git`,
    clone_url: `${repoHtml}.git`,
    svn_url: repoHtml,
    mirror_url: null,
    homepage: null,
    language: "Python",
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    subscribers_count: 1,
    network_count: 0,
    size: 108,
    default_branch: "main",
    open_issues: openCount(),
    open_issues_count: openCount(),
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: "public",
    license: null,
    allow_forking: true,
    web_commit_signoff_required: false,
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    pushed_at: "2024-01-01T00:00:00Z",
    created_at: "2024-01-01T00:00:00Z",
    updated_at: "2024-01-01T00:00:00Z",
  });
  const branchJson = (b: BranchRef) => ({ ...b, user: userJson(ownerUser), repo: repoJson() });
  const commentCount = (issueNumber: number) => comments.filter((c) => c.issue_number === issueNumber).length;
  /** pulls/list answers pull-request-simple; the other pull operations the full pull-request. */
  const pullJson = (p: StoredPull, full: boolean) => {
    const issueUrl = `${repoApi}/issues/${p.number}`;
    const links = {
      self: p.url,
      html: p.html_url,
      issue: issueUrl,
      comments: `${issueUrl}/comments`,
      review_comments: `${p.url}/comments`,
      review_comment: `${repoApi}/pulls/comments{/number}`,
      commits: `${p.url}/commits`,
      statuses: `${repoApi}/statuses/${p.head.sha}`,
    };
    const simple = {
      url: p.url,
      id: p.id,
      node_id: p.node_id,
      html_url: p.html_url,
      diff_url: `${p.html_url}.diff`,
      patch_url: `${p.html_url}.patch`,
      issue_url: issueUrl,
      commits_url: links.commits,
      review_comments_url: links.review_comments,
      review_comment_url: links.review_comment,
      comments_url: links.comments,
      statuses_url: links.statuses,
      number: p.number,
      state: p.state,
      locked: false,
      title: p.title,
      user: userJson(p.user),
      body: p.body,
      labels: [],
      milestone: null,
      active_lock_reason: null,
      created_at: p.created_at,
      updated_at: p.updated_at,
      closed_at: p.closed_at,
      merged_at: p.merged_at,
      merge_commit_sha: p.merge_commit_sha,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: branchJson(p.head),
      base: branchJson(p.base),
      _links: Object.fromEntries(Object.entries(links).map(([k, href]) => [k, { href }])),
      author_association: "NONE",
      auto_merge: null,
      draft: p.draft,
    };
    if (!full) return simple;
    // GitHub computes mergeability in the background; right after a write it reports null/"unknown".
    const mergeability = { mergeable: null, rebaseable: null, mergeable_state: "unknown" };
    const counts = { comments: commentCount(p.number), review_comments: 0, commits: 1, additions: 0, deletions: 0, changed_files: 0 };
    const merge = { merged: p.merged_at !== null, merged_by: p.merged_by && userJson(p.merged_by) };
    return { ...simple, ...merge, maintainer_can_modify: false, ...mergeability, ...counts };
  };
  const commentJson = (c: StoredComment) => ({
    id: c.id,
    node_id: c.node_id,
    url: c.url,
    html_url: c.html_url,
    body: c.body,
    user: userJson(c.user),
    created_at: c.created_at,
    updated_at: c.updated_at,
    issue_url: c.issue_url,
    author_association: c.user.login === actor.login || c.app ? "NONE" : "MEMBER",
    performed_via_github_app: c.app ? integrationJson(c.app) : null,
  });
  /** A GitHub App (GitHub's `integration`): the owner of a check run, the writer of a comment made with its installation token. */
  const integrationJson = (app: StandInApp) => ({
    id: app.id,
    slug: app.slug,
    node_id: legacyNodeId("Integration", app.id),
    client_id: `Iv1.${app.id.toString(16).padStart(16, "0")}`,
    owner: userJson(ownerUser),
    name: app.name,
    description: "",
    external_url: `https://github.com/apps/${app.slug}`,
    html_url: `https://github.com/apps/${app.slug}`,
    created_at: "2024-01-01T00:00:00Z",
    updated_at: "2024-01-01T00:00:00Z",
    permissions: { checks: "write", metadata: "read" },
    events: [],
  });

  return { repoJson, pullJson, commentJson, userJson, integrationJson };
}

/** GitHub's legacy global node id: base64 of "0<length of type>:<Type><id>", e.g. "MDExOlB1bGxSZXF1ZXN0MQ==". */
export function legacyNodeId(type: string, id: number): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString("base64");
}
