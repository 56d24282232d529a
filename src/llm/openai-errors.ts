import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { RpgForgeError } from "../errors.js";
import type { ModelResponse } from "./provider.js";

export interface EndpointFacts {
  apiKey: string;
  baseURL: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
}

const ENV_HINT = "check OPENAI_API_KEY, and OPENAI_BASE_URL if the key belongs to another endpoint (Azure OpenAI, vLLM, Ollama)";

/** Statuses that are about this one request (too long, malformed), so only the node fails. */
const REQUEST_STATUSES = new Set([400, 413, 422]);

/**
 * Turns what the SDK threw into either a node-level failure (ok:false) or a run-level
 * RpgForgeError. Retries are already spent when this runs: the SDK retried 408, 409,
 * 429, 5xx, timeouts and connection errors with exponential backoff, honouring
 * Retry-After. Nothing returned or thrown here contains the API key: servers echo it
 * (OpenAI's 401 names a masked key; others name it whole), so messages are redacted
 * and the SDK error travels as a redacted copy.
 */
export function mapOpenAiError(error: unknown, facts: EndpointFacts, signal: AbortSignal | undefined): ModelResponse {
  if (error instanceof APIUserAbortError || signal?.aborted) throw signal?.reason ?? error;
  if (!(error instanceof APIError)) throw error;
  const clean = (text: string): string => redactKey(text, facts.apiKey);
  const cause = { cause: redactedCopy(error, facts.apiKey) };
  const retried = facts.maxRetries === 1 ? "after 1 retry" : `after ${facts.maxRetries} retries`;

  if (error instanceof APIConnectionTimeoutError) {
    throw new RpgForgeError(
      "MODEL_UNAVAILABLE",
      `the model endpoint at ${facts.baseURL} did not answer within ${facts.timeoutMs / 1000} s, ${retried}`,
      {},
      "the endpoint may be overloaded; try again later, or raise the timeout for slow local models",
      cause,
    );
  }
  if (error instanceof APIConnectionError) {
    throw new RpgForgeError(
      "MODEL_UNREACHABLE",
      `could not connect to the model endpoint at ${facts.baseURL} (${connectionDetail(error)}), ${retried}`,
      {},
      "check OPENAI_BASE_URL and that the server is running and reachable from this machine",
      cause,
    );
  }
  const status = error.status ?? 0;
  const said = clean(serverMessage(error));
  if (status === 401 || status === 403) {
    throw new RpgForgeError("MODEL_AUTH", `the model endpoint refused the key (${status}: ${said})`, {}, ENV_HINT, cause);
  }
  if (status === 404) {
    throw new RpgForgeError(
      "MODEL_NOT_FOUND",
      `the model endpoint at ${facts.baseURL} has no model "${facts.model}" (404: ${said})`,
      {},
      "check --model or RPG_FORGE_MODEL, and that OPENAI_BASE_URL is the API root (it usually ends in /v1)",
      cause,
    );
  }
  if (REQUEST_STATUSES.has(status)) return { ok: false, reason: `the model endpoint rejected the request (${status}: ${said})` };
  throw new RpgForgeError(
    "MODEL_UNAVAILABLE",
    `the model endpoint at ${facts.baseURL} answered ${status} ${retried}: ${said}`,
    {},
    status === 429
      ? "the rate limit or quota of the key is exhausted; wait, or raise the limit"
      : "the endpoint is failing; try again later",
    cause,
  );
}

/** Replaces every occurrence of the key; keys too short to be secret are left alone so messages stay readable. */
export function redactKey(text: string, apiKey: string): string {
  return apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text;
}

function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (typeof body?.message === "string" && body.message) return body.message;
  // APIError prefixes the status to its message; the caller shows the status itself.
  return error.message.replace(/^\d{3} /, "") || "no message";
}

/** The most specific reason in the cause chain: ECONNREFUSED, ENOTFOUND, ... */
function connectionDetail(error: Error): string {
  let current: unknown = error.cause;
  let detail = "connection error";
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    detail = current.message || detail;
    current = current.cause;
  }
  return detail;
}

function redactedCopy(error: APIError, apiKey: string): Error {
  const copy = new Error(redactKey(error.message, apiKey));
  copy.name = error.constructor.name;
  return Object.assign(copy, { status: error.status });
}
