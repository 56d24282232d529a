import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Octokit, RepositoryRef } from "../github/repository.js";
import type { Plan } from "../plan/plan.js";
import type { Rpg } from "../rpg/schema.js";
import type { ActionInputs } from "./inputs.js";

/** What the runner tells the Action about where it runs (GITHUB_* variables and the event). */
export interface ActionContext {
  workspace: string;
  repository: RepositoryRef;
  apiUrl: string;
  serverUrl: string;
  event: Record<string, unknown>;
  workflowRef: string | undefined;
}

export async function readContext(env: NodeJS.ProcessEnv = process.env): Promise<ActionContext> {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/");
  if (!owner || !repo) throw new Error("GITHUB_REPOSITORY is not set to owner/repo; is this running in GitHub Actions?");
  const eventPath = env.GITHUB_EVENT_PATH;
  const event = eventPath ? (JSON.parse(await readFile(eventPath, "utf8")) as Record<string, unknown>) : {};
  return {
    workspace: resolve(env.GITHUB_WORKSPACE ?? process.cwd()),
    repository: { owner, repo },
    apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
    serverUrl: env.GITHUB_SERVER_URL ?? "https://github.com",
    event,
    workflowRef: env.GITHUB_WORKFLOW_REF,
  };
}

/** The issue or pull request the event is about, if any. */
export function eventIssueNumber(event: Record<string, unknown>): number | undefined {
  for (const key of ["issue", "pull_request"]) {
    const value = event[key] as { number?: unknown } | undefined;
    if (typeof value?.number === "number") return value.number;
  }
  return undefined;
}

/** The workflow file this run belongs to (GITHUB_WORKFLOW_REF is owner/repo/.github/workflows/<file>@<ref>). */
export function workflowFile(context: ActionContext): string {
  const match = /\.github\/workflows\/([^@]+)@/.exec(context.workflowRef ?? "");
  return match?.[1] ?? "rpg-generate.yml";
}

/** The branch PRs go to when the input does not say: the event's repository default, else the API's. */
export function defaultBranchFromEvent(context: ActionContext): string | undefined {
  return (context.event.repository as { default_branch?: string } | undefined)?.default_branch;
}

/** The RPG of this run, loaded and planned once. */
export interface RpgAtHand {
  rpg: Rpg;
  /** Absolute path of the file. */
  rpgFile: string;
  /** Path relative to the workspace, as annotations and comments name it. */
  rpgPath: string;
  text: string;
  plan: Plan;
}

/** The branch PRs go to: the input, else the repository's default branch (from the event, or asked of the API). */
export async function baseBranchOf(inputs: Pick<ActionInputs, "baseBranch">, context: ActionContext, octokit: Octokit): Promise<string> {
  return (
    inputs.baseBranch || defaultBranchFromEvent(context) || (await octokit.rest.repos.get({ ...context.repository })).data.default_branch
  );
}
