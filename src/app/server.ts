/**
 * `npm start`: serves the App's webhook endpoint (Probot's server, with its setup page for
 * registering the App from app.yml when nothing is configured yet). Reads APP_ID, PRIVATE_KEY
 * (or PRIVATE_KEY_PATH) and WEBHOOK_SECRET from the environment or .env; .env.example lists the rest.
 */
import { join } from "node:path";

import { run } from "probot";

import { AppError } from "./errors.js";
import app from "./index.js";
import { applyDotEnv, checkServerEnv } from "./server-env.js";

applyDotEnv(join(process.cwd(), ".env"));
try {
  checkServerEnv(process.env);
  await run(app);
} catch (error) {
  console.error(error instanceof AppError ? error.message : error);
  process.exitCode = 1;
}
