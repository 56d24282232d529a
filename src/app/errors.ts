/**
 * Codes of errors that stop the App or one delivery.
 * TODO(issue 15): move into RUN_ERROR_CODES (src/errors.ts) and docs/errors.md; this slice may not touch them.
 */
export const APP_ERROR_CODES = {
  APP_ENV_MISSING: "The App's server was started with APP_ID and a private key but without WEBHOOK_SECRET, or the reverse.",
  APP_CONFIG_INVALID: "The repository's .github/rpg-forge.yml has a key of the wrong type or value.",
} as const;

export type AppErrorCode = keyof typeof APP_ERROR_CODES;

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
