import type { Context } from "probot";

import { DEFAULT_CONFIG_PATH, describeConfigProblem, parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import { AppError } from "./errors.js";

/** Repository roles, weakest first, to compare a person's role with `permission`. */
export const ROLES = ["read", "triage", "write", "maintain", "admin"] as const;
export type Role = (typeof ROLES)[number];

export type AppConfig = RepoConfig;

/**
 * The repository's `.github/rpg-forge.yml`, checked by RepoConfigSchema, with its defaults for
 * the keys it leaves out. Probot reads it from the default branch only (a pull request cannot
 * change what the App does), falling back to the owner's `.github` repository.
 * TODO(issue 15): report a bad file where the request was made (a comment naming the keys), not as a failed delivery.
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
 * The graph a dispatch names: the first of `rpg`, as the Action takes it when its input is
 * empty. Sent explicitly, since the workflow template fills an empty `rpg-path` itself.
 * TODO(issue 15): with several graphs, dispatch for the graph of the pull request (its branch's `rpg/<name>/`).
 */
export function rpgPathOf(config: AppConfig): string {
  return config.rpg[0]!;
}
