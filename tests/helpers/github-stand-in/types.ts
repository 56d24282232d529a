import type { NewReview, StoredReview, StoredReviewComment } from "./reviews.js";
import type { IncomingHttpHeaders } from "node:http";

/** The stand-in's public shapes: its options, the handle a test holds, and the state it keeps in memory. */

export interface StandInUser {
  login: string;
  id: number;
  type: "User" | "Bot" | "Organization";
}

export interface StandInRequest {
  method: string;
  /** The path as sent, without the query string. */
  path: string;
  query: Record<string, string>;
  /** The parsed JSON body; undefined when none was sent. */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** The operation of GitHub's REST description the request matched, e.g. "pulls/create". */
  operationId?: string;
}

/** Not part of the public entry: how a stored pull's head and base are kept. */
export interface BranchRef {
  ref: string;
  sha: string;
  label: string;
}

export interface StoredPull {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  draft: boolean;
  head: BranchRef;
  base: BranchRef;
  html_url: string;
  url: string;
  user: StandInUser;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** Set together by pulls/merge; `merged` in the JSON is derived from merged_at, so the two never disagree. */
  merged_at: string | null;
  merge_commit_sha: string | null;
  merged_by: StandInUser | null;
}

export interface StoredIssue {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  labels: string[];
  state: "open" | "closed";
}

export interface StoredComment {
  id: number;
  node_id: string;
  /** The issue or pull request number the comment sits on. */
  issue_number: number;
  body: string;
  html_url: string;
  url: string;
  issue_url: string;
  user: StandInUser;
  /** The App whose installation token wrote it (GitHub's performed_via_github_app); undefined otherwise. */
  app?: StandInApp | undefined;
  created_at: string;
  updated_at: string;
}

/** A GitHub App, as the owner of check runs. */
export interface StandInApp {
  id: number;
  slug: string;
  name: string;
  /**
   * The App's public key (PEM). Given, the stand-in is the App's installation on its repository: it mints
   * installation tokens for JWTs this key verifies (apps.ts), and what a request with such a token writes is
   * the App's bot's (`<slug>[bot]`) and the App's; any other token is GITHUB_TOKEN's, written as `actor` and
   * GitHub Actions. Without it, every token belongs to this App (its check runs) and writes as `actor`.
   */
  publicKey?: string;
}

export interface StoredCheckRun {
  id: number;
  node_id: string;
  name: string;
  head_sha: string;
  external_id: string;
  status: string;
  conclusion: string | null;
  started_at: string;
  completed_at: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** Every annotation sent, in order: an update appends its own. */
  annotations: {
    path: string;
    start_line: number;
    end_line: number;
    start_column?: number;
    end_column?: number;
    annotation_level: string;
    title?: string;
    message: string;
    raw_details?: string;
  }[];
  actions: { label: string; identifier: string; description: string }[];
  app: StandInApp;
}

export interface GitHubStandInOptions {
  /** Default "octo-org". Requests for any other repository get 404. */
  owner?: string;
  /** Default "stats". */
  repo?: string;
  /** Who the token belongs to: author of created PRs and comments. Default github-actions[bot], as with GITHUB_TOKEN. */
  actor?: StandInUser;
  /** The clock for created_at, updated_at, merged_at and merge commits' dates, and for JWTs' and installation tokens' expiry. Default the real one. */
  now?: () => Date;
  /**
   * The path of a bare git repository the test pushes branches to. Given, pull requests report their branches'
   * real tips, pulls/create refuses a head or base that is not there, and pulls/merge merges, squashes or rebases
   * for real and pushes the base branch back. Without it shas are made up from branch names and pulls/merge is
   * not implemented (404).
   */
  remote?: string;
  /** GitHub's "Automatically delete head branches" setting: a merge deletes the head branch and retargets PRs based on it. Default false. */
  deleteBranchOnMerge?: boolean;
  /**
   * The App the token belongs to, which owns the check runs it makes. Default GitHub Actions', as with GITHUB_TOKEN.
   * With a `publicKey`, only the installation tokens it mints belong to the App (see StandInApp).
   */
  app?: StandInApp;
}

export interface GitHubStandIn {
  /** The API root, for GITHUB_API_URL and Octokit's baseUrl. */
  url: string;
  owner: string;
  repo: string;
  /** Every request received, in order. */
  requests: StandInRequest[];
  /** Requests that do not match GitHub's REST description; a test should expect this to be empty. */
  violations: string[];
  /** Live state: tests may edit it, e.g. close a PR as a person would. */
  pulls: StoredPull[];
  issues: StoredIssue[];
  comments: StoredComment[];
  checkRuns: StoredCheckRun[];
  /** Inline review comments and the replies to them. */
  reviewComments: StoredReviewComment[];
  /** The installation tokens minted for the App (apps/create-installation-access-token), in order. */
  installationTokens: { token: string; expires_at: string }[];
  /** A person's review of a pull request's head, with inline comments; returns it with its id. */
  addReview(review: NewReview): StoredReview;
  /** Opens an issue and returns its number (shared with pull requests, as on GitHub). */
  addIssue(issue: { title: string; body?: string; labels?: string[] }): number;
  /** Adds a comment written by someone else than the actor, e.g. a person quoting the bot's marker. */
  addComment(comment: { issue_number: number; body: string; user?: StandInUser }): StoredComment;
  close(): Promise<void>;
}
