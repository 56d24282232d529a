import { load } from "js-yaml";
import type { Context } from "probot";

import type { AppConfig } from "./config.js";
import type { DispatchTo } from "./dispatch.js";

/**
 * Whether the repository's rpg-forge workflow starts itself on an event (its own `on:`), so
 * that the App dispatching too would run the work twice: the template runs on a push of an
 * rpg.json and restacks on a merged pull request by itself. Read from the default branch, as
 * GitHub reads it; a file that is missing or does not parse counts as no trigger, and the
 * dispatch then says what is wrong with it.
 */
export async function workflowStartsOn(
  octokit: Context["octokit"],
  to: DispatchTo,
  config: AppConfig,
  event: "push" | "pull_request",
): Promise<boolean> {
  let text: string;
  try {
    const { data } = await octokit.rest.repos.getContent({
      owner: to.owner,
      repo: to.repo,
      path: `.github/workflows/${config.workflow}`,
      ref: to.defaultBranch,
    });
    if (Array.isArray(data) || data.type !== "file" || !("content" in data)) return false;
    text = Buffer.from(data.content, "base64").toString("utf8");
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return false;
    throw error;
  }
  let workflow: unknown;
  try {
    workflow = load(text);
  } catch {
    return false;
  }
  return triggers(workflow).has(event);
}

/** The events of a workflow's `on:`: a name, a list of names, or a map keyed by them. */
function triggers(workflow: unknown): Set<string> {
  const on = typeof workflow === "object" && workflow !== null ? (workflow as Record<string, unknown>).on : undefined;
  if (typeof on === "string") return new Set([on]);
  if (Array.isArray(on)) return new Set(on.filter((e): e is string => typeof e === "string"));
  if (typeof on === "object" && on !== null) return new Set(Object.keys(on));
  return new Set();
}
