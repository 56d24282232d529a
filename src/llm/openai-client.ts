import OpenAI from "openai";
import type { EndpointFacts } from "./openai-errors.js";

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Where and how to reach an OpenAI-compatible endpoint; what the chat provider and the embeddings client share. */
export interface OpenAiEndpointOptions {
  apiKey: string;
  /** An OpenAI-compatible API root; defaults to OpenAI's own. */
  baseURL?: string;
  model: string;
  /** Per HTTP call. A timed-out call counts as one of the retries. */
  timeoutMs?: number;
  /** Retries of 408, 409, 429, 5xx, timeouts and connection errors. */
  maxRetries?: number;
}

/**
 * The SDK client for an endpoint, and the facts its errors are reported with (mapOpenAiError), built
 * in one place so that every client of rpg-forge names the endpoint, redacts the key and stays quiet
 * the same way. `defaults` are the caller's: a chat completion may take minutes, an embedding not.
 */
export function createOpenAiClient(
  options: OpenAiEndpointOptions,
  defaults: { timeoutMs: number; maxRetries: number },
): { client: OpenAI; facts: EndpointFacts } {
  const facts: EndpointFacts = {
    apiKey: options.apiKey,
    // Passed explicitly: left undefined, the SDK would read OPENAI_BASE_URL itself and
    // our messages could name a different endpoint from the one called.
    baseURL: options.baseURL ?? OPENAI_BASE_URL,
    model: options.model,
    timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
    maxRetries: options.maxRetries ?? defaults.maxRetries,
  };
  const client = new OpenAI({
    apiKey: facts.apiKey,
    baseURL: facts.baseURL,
    timeout: facts.timeoutMs,
    maxRetries: facts.maxRetries,
    // The CLI owns stderr (progress lines); failures reach the user as RpgForgeError.
    logLevel: "off",
  });
  return { client, facts };
}
