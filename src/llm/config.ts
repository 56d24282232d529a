import { RpgForgeError } from "../errors.js";
import type { OpenAiProviderOptions } from "./openai-provider.js";

export const DEFAULT_MODEL = "gpt-4o-mini";

/**
 * Sent when OPENAI_BASE_URL is set without OPENAI_API_KEY. Local OpenAI-compatible
 * servers (vLLM, Ollama, llama.cpp) ignore the key, but the SDK refuses to start
 * without one; a server that does want a key answers 401, which becomes MODEL_AUTH.
 */
export const PLACEHOLDER_API_KEY = "no-key-needed";

export type ModelConfig = Pick<OpenAiProviderOptions, "apiKey" | "baseURL" | "model">;

export interface ModelFlags {
  /** --model; falls back to RPG_FORGE_MODEL, then DEFAULT_MODEL. */
  model?: string | undefined;
}

const HOW_TO_CONFIGURE =
  "set OPENAI_API_KEY (and OPENAI_BASE_URL for Azure OpenAI, vLLM, Ollama and other OpenAI-compatible servers), or pass --replay <cassette>";

/**
 * The model to talk to, from the environment and CLI flags. Empty variables count as
 * unset (CI often defines secrets that are empty on forks). Throws MODEL_NOT_CONFIGURED
 * when there is neither a key nor a base URL, or the base URL is not an http(s) URL.
 */
export function resolveModelConfig(env: Readonly<Record<string, string | undefined>>, flags: ModelFlags = {}): ModelConfig {
  const apiKey = nonEmpty(env["OPENAI_API_KEY"]);
  const baseURL = nonEmpty(env["OPENAI_BASE_URL"]);
  const model = nonEmpty(flags.model) ?? nonEmpty(env["RPG_FORGE_MODEL"]) ?? DEFAULT_MODEL;

  if (baseURL !== undefined && !isHttpUrl(baseURL)) {
    throw new RpgForgeError(
      "MODEL_NOT_CONFIGURED",
      `OPENAI_BASE_URL is not an http(s) URL: ${JSON.stringify(baseURL)}`,
      { field: "OPENAI_BASE_URL" },
      "use the server's API root, e.g. http://localhost:11434/v1 for Ollama or http://localhost:8000/v1 for vLLM",
    );
  }
  if (apiKey === undefined && baseURL === undefined) {
    throw new RpgForgeError(
      "MODEL_NOT_CONFIGURED",
      `no model is configured: ${HOW_TO_CONFIGURE}`,
      { field: "OPENAI_API_KEY" },
      HOW_TO_CONFIGURE,
    );
  }
  const config: ModelConfig = { apiKey: apiKey ?? PLACEHOLDER_API_KEY, model };
  if (baseURL !== undefined) config.baseURL = baseURL;
  return config;
}

function nonEmpty(value: string | undefined): string | undefined {
  // A key pasted with `$(cat key.txt)` carries a newline the server would reject.
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
