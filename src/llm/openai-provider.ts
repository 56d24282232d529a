import OpenAI, { BadRequestError } from "openai";
import { mapOpenAiError, type EndpointFacts } from "./openai-errors.js";
import { ZERO_USAGE, type ModelProvider, type ModelRequest, type ModelResponse } from "./provider.js";

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

export interface OpenAiProviderOptions {
  apiKey: string;
  /** An OpenAI-compatible API root; defaults to OpenAI's own. */
  baseURL?: string;
  model: string;
  /** Per HTTP call; default 120_000. A timed-out call counts as one of the retries. */
  timeoutMs?: number;
  /** Retries of 408, 409, 429, 5xx, timeouts and connection errors; default 4. */
  maxRetries?: number;
}

/**
 * A ModelProvider over the OpenAI chat completions API, which Azure OpenAI's v1 API,
 * vLLM, Ollama and llama.cpp also speak. Every request asks for structured output
 * (strict json_schema), so a conforming server only ever replies with schema-valid JSON.
 */
export function createOpenAiProvider(options: OpenAiProviderOptions): ModelProvider {
  const facts: EndpointFacts = {
    apiKey: options.apiKey,
    // Passed explicitly: left undefined, the SDK would read OPENAI_BASE_URL itself and
    // our messages could name a different endpoint from the one called.
    baseURL: options.baseURL ?? OPENAI_BASE_URL,
    model: options.model,
    timeoutMs: options.timeoutMs ?? 120_000,
    maxRetries: options.maxRetries ?? 4,
  };
  const client = new OpenAI({
    apiKey: facts.apiKey,
    baseURL: facts.baseURL,
    timeout: facts.timeoutMs,
    maxRetries: facts.maxRetries,
    // The CLI owns stderr (progress lines); failures reach the user as RpgForgeError.
    logLevel: "off",
  });

  // Some models take only their default temperature (OpenAI's reasoning models answer 400, param
  // "temperature"): once refused, a request is asked again without one, and so is every later request.
  let temperatureRefused = false;
  const provider: ModelProvider = {
    description: `${facts.model} at ${facts.baseURL}`,
    async complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      const temperature = temperatureRefused ? undefined : request.temperature;
      // The SDK leaves its listener on the signal it is given; a run makes thousands of
      // calls with one run-wide signal, so each call gets its own, linked and unlinked here.
      const call = new AbortController();
      const forward = (): void => call.abort(signal?.reason);
      signal?.addEventListener("abort", forward, { once: true });
      if (signal?.aborted) forward();
      try {
        completion = await client.chat.completions.create(
          {
            model: facts.model,
            messages: request.messages,
            response_format: { type: "json_schema", json_schema: { name: request.schemaName, schema: request.jsonSchema, strict: true } },
            ...(temperature !== undefined ? { temperature } : {}),
          },
          { signal: call.signal },
        );
      } catch (error) {
        if (temperature !== undefined && refusesTemperature(error)) {
          temperatureRefused = true;
          return provider.complete(request, signal);
        }
        return mapOpenAiError(error, facts, signal);
      } finally {
        signal?.removeEventListener("abort", forward);
      }
      return readCompletion(completion);
    },
  };
  return provider;
}

function refusesTemperature(error: unknown): boolean {
  return error instanceof BadRequestError && (error.param === "temperature" || /\btemperature\b/i.test(error.message));
}

function readCompletion(completion: OpenAI.Chat.Completions.ChatCompletion): ModelResponse {
  // Some compatible servers omit usage; the report then shows zeros rather than failing.
  const usage = completion.usage
    ? {
        promptTokens: completion.usage.prompt_tokens ?? 0,
        completionTokens: completion.usage.completion_tokens ?? 0,
        totalTokens: completion.usage.total_tokens ?? 0,
      }
    : { ...ZERO_USAGE };
  const choice = completion.choices?.[0];
  if (!choice) return { ok: false, reason: "the model returned no choices", usage };
  const { refusal, content } = choice.message;
  if (refusal) return { ok: false, reason: `the model refused: ${refusal}`, usage };
  if (!content || !content.trim()) {
    return { ok: false, reason: `the model returned an empty reply (finish_reason ${choice.finish_reason ?? "unknown"})`, usage };
  }
  return { ok: true, content, usage };
}
