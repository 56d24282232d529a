import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";

import { AppError } from "./errors.js";

/**
 * `.env` over the environment, as Probot's `run` applies it (its values win), so that the check
 * below sees what Probot will use. A missing file is no error: production sets the environment.
 */
export function applyDotEnv(path: string, env: NodeJS.ProcessEnv = process.env): void {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  Object.assign(env, parseEnv(text));
}

/**
 * Refuses to serve webhooks half-configured. With none of APP_ID, the key and WEBHOOK_SECRET,
 * Probot serves its setup page, which registers the App from app.yml and writes .env. With
 * some, all three are needed: without WEBHOOK_SECRET, Probot would check signatures against
 * its public default ("development"), so anyone could send the App webhooks.
 */
export function checkServerEnv(env: NodeJS.ProcessEnv): void {
  const given = {
    APP_ID: Boolean(env.APP_ID),
    "PRIVATE_KEY or PRIVATE_KEY_PATH": Boolean(env.PRIVATE_KEY || env.PRIVATE_KEY_PATH),
    WEBHOOK_SECRET: Boolean(env.WEBHOOK_SECRET),
  };
  const missing = Object.entries(given).filter(([, set]) => !set);
  if (missing.length === 0 || (missing.length === 3 && env.NODE_ENV !== "production")) return;
  throw new AppError(
    "APP_ENV_MISSING",
    `${missing.map(([name]) => name).join(", ")} not set`,
    "set them in the environment or in .env, as .env.example shows; the App's settings page on GitHub shows its ID and webhook secret and makes private keys",
  );
}
