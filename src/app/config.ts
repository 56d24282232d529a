import type { Context } from "probot";
import { z } from "zod";

import { AppError } from "./errors.js";

/** Repository roles, weakest first: `permission` names the least one that may start runs. */
export const ROLES = ["read", "triage", "write", "maintain", "admin"] as const;
export type Role = (typeof ROLES)[number];

/**
 * The keys of `.github/rpg-forge.yml` the App reads so far, with the defaults of RepoConfigSchema.
 * TODO(issue 15): replace with parseRepoConfig (src/config/repo-config.ts) once it lands; loadAppConfig is the one caller.
 */
const AppConfigSchema = z.object({
  rpg: z.array(z.string().min(1)).min(1).default(["rpg.json"]),
  label: z.string().min(1).default("generate"),
  command: z.string().regex(/^\S+$/, "must be one word, like /rpg").default("/rpg"),
  workflow: z.string().min(1).default("rpg-generate.yml"),
  permission: z.enum(["write", "maintain", "admin"]).default("write"),
});

export type AppConfig = z.infer<typeof AppConfigSchema>;

/**
 * The repository's `.github/rpg-forge.yml` (Probot reads it from the default branch only, so a
 * pull request cannot change what the App does, and falls back to the owner's `.github`
 * repository), with defaults for the keys it leaves out.
 */
export async function loadAppConfig(context: Context): Promise<AppConfig> {
  // Defaults come from the schema, not from context.config: its deep merge would add a file's `rpg` list to the default one.
  const raw = await context.config<Record<string, unknown>>("rpg-forge.yml", {}, { arrayMerge: (_defaults, file: unknown[]) => file });
  const parsed = AppConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  throw new AppError("APP_CONFIG_INVALID", `.github/rpg-forge.yml: ${problems}`, "fix these keys of .github/rpg-forge.yml");
}

/** The one graph a dispatch names. */
export function rpgPathOf(config: AppConfig): string {
  if (config.rpg.length > 1)
    throw new AppError(
      "APP_CONFIG_INVALID",
      `.github/rpg-forge.yml: rpg lists ${config.rpg.length} graphs`,
      "the App dispatches runs for one graph so far (issue 15): list one",
    );
  return config.rpg[0]!;
}
