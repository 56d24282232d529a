import type { Context } from "probot";

import { DEFAULT_CONFIG_PATH, RepoConfigSchema, describeConfigProblem, parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import { commentMarker, upsertComment } from "../github/comments.js";
import { renderConfigProblem } from "./replies.js";
import { AppError } from "./errors.js";

/** Repository roles, weakest first, to compare a person's role with `permission`. */
export const ROLES = ["read", "triage", "write", "maintain", "admin"] as const;
export type Role = (typeof ROLES)[number];

export type AppConfig = RepoConfig;

/**
 * The repository's `.github/rpg-forge.yml`, checked by RepoConfigSchema, with its defaults for
 * the keys it leaves out. Probot reads it from the default branch only (a pull request cannot
 * change what the App does), falling back to the owner's `.github` repository.
 * A bad file throws APP_CONFIG_INVALID; configForRequest says so where the request was made.
 */
export async function loadAppConfig(context: Context): Promise<AppConfig> {
  let raw: unknown;
  try {
    // No defaults here (the schema has them), and a file's list replaces an `_extends` base's instead of adding to it.
    raw = await context.config("rpg-forge.yml", undefined, { arrayMerge: (_base, own: unknown[]) => own });
  } catch (error) {
    if ((error as { status?: unknown }).status !== undefined) throw error; // GitHub's answer, not the file's content
    throw new AppError("APP_CONFIG_INVALID", `${DEFAULT_CONFIG_PATH}: ${(error as Error).message}`, "fix the file's YAML", {
      cause: error,
    });
  }
  const parsed = parseRepoConfig(raw, DEFAULT_CONFIG_PATH);
  if (parsed.ok) return parsed.config;
  const problems = parsed.problems.map(describeConfigProblem).join("; ");
  throw new AppError("APP_CONFIG_INVALID", `${DEFAULT_CONFIG_PATH}: ${problems}`, `fix these keys of ${DEFAULT_CONFIG_PATH}`);
}

/**
 * The config for a request made on an issue or pull request: a bad file is said there, once (a
 * marker keys the comment), naming its keys, and the request starts nothing. Whether the request
 * was one for rpg-forge is judged by `asked` against the defaults, since the file that would
 * change the label or the command prefix is the one that cannot be read.
 */
export async function configForRequest(
  context: Context,
  target: { number: number },
  asked: (defaults: AppConfig) => boolean,
): Promise<AppConfig | undefined> {
  try {
    return await loadAppConfig(context);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "APP_CONFIG_INVALID") throw error;
    if (!asked(RepoConfigSchema.parse({}))) return undefined;
    await upsertComment(
      context.octokit,
      { ...context.repo(), issueNumber: target.number },
      commentMarker("config-invalid", DEFAULT_CONFIG_PATH),
      renderConfigProblem(error.message),
    );
    return undefined;
  }
}

/**
 * The graph a dispatch names: the first of `rpg`, as the Action takes it when its input is
 * empty. Sent explicitly, since the workflow template fills an empty `rpg-path` itself. A request
 * on a pull request names its own graph instead (graph-of-branch.ts).
 */
export function rpgPathOf(config: AppConfig): string {
  return config.rpg[0]!;
}
