/**
 * A real HTTP server on 127.0.0.1 standing in for api.github.com, so tests drive the real
 * `@octokit/rest` client (or the Action as a child process with GITHUB_API_URL) over a socket.
 * It keeps pull requests, issues and comments in memory, and checks every request against
 * GitHub's published REST description (`@octokit/openapi`), so a request GitHub would reject
 * fails the test here instead of in production. Response shapes follow the description's
 * response schemas; tests/helpers/github-stand-in.test.ts validates them against it.
 *
 * This file is the public entry; the parts live in github-stand-in/: description.ts loads and indexes the
 * REST description and validates requests against it, server.ts is the HTTP server, handlers.ts keeps the
 * repository's state and implements the operations, shapes.ts renders that state into GitHub's response
 * shapes, and types.ts holds the public types. With the `remote` option, remote.ts runs git on the bare
 * repository the test pushes to (branch tips, merges in a throwaway clone) and merge.ts implements pulls/merge.
 * With an `app` that has a public key, apps.ts makes it the App's installation: it mints installation tokens for
 * the App's JWT, and what such a token writes is the App's bot's.
 */

export { startGitHubStandIn } from "./github-stand-in/server.js";
export type {
  GitHubStandIn,
  GitHubStandInOptions,
  StandInApp,
  StandInRequest,
  StandInUser,
  StoredCheckRun,
  StoredComment,
  StoredIssue,
  StoredPull,
} from "./github-stand-in/types.js";
