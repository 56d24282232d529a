import type { RunErrorCode } from "../errors.js";

/** Codes of errors that stop the App or one delivery; described with the others in src/errors.ts and docs/errors.md. */
export type AppErrorCode = Extract<RunErrorCode, "APP_ENV_MISSING" | "APP_CONFIG_INVALID">;

/** An error of the App, with what to change to get past it. */
export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly hint: string;

  constructor(code: AppErrorCode, message: string, hint: string, options?: ErrorOptions) {
    super(`${code}: ${message} (${hint})`, options);
    this.name = new.target.name;
    this.code = code;
    this.hint = hint;
  }
}
