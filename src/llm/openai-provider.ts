import { BadRequestError, type OpenAI } from "openai";
import { createOpenAiClient, type OpenAiEndpointOptions } from "./openai-client.js";
import { mapOpenAiError } from "./openai-errors.js";
import { ZERO_USAGE, type ModelMessage, type ModelProvider, type ModelRequest, type ModelResponse } from "./provider.js";

export { OPENAI_BASE_URL } from "./openai-client.js";

/** The endpoint; timeoutMs defaults to 120_000 and maxRetries to 4. */
export type OpenAiProviderOptions = OpenAiEndpointOptions;

/**
 * A ModelProvider over the OpenAI chat completions API, which Azure OpenAI's v1 API,
 * vLLM, Ollama and llama.cpp also speak. Every request asks for structured output
 * (strict json_schema), so a conforming server only ever replies with schema-valid JSON.
 */
export function createOpenAiProvider(options: OpenAiProviderOptions): ModelProvider {
  const { client, facts } = createOpenAiClient(options, { timeoutMs: 120_000, maxRetries: 4 });

  // Some models take only their default temperature (OpenAI's reasoning models answer 400, param
  // "temperature"): once refused, a request is asked again without one, and so is every later request.
  let temperatureRefused = false;
  // An endpoint that takes no tools (many local servers) says so once; every later request with tools is answered
  // at once with the same refusal, and the caller inlines the context instead.
  let toolsRefused: string | undefined;
  const provider: ModelProvider = {
    description: `${facts.model} at ${facts.baseURL}`,
    async complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse> {
      const tools = request.tools && request.tools.length > 0 ? request.tools : undefined;
      if (tools && toolsRefused !== undefined) return { ok: false, reason: toolsRefused, toolsRefused: true };
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
            messages: request.messages.map(toWireMessage),
            response_format: { type: "json_schema", json_schema: { name: request.schemaName, schema: request.jsonSchema, strict: true } },
            ...(temperature !== undefined ? { temperature } : {}),
            ...(tools
              ? {
                  tools: tools.map((t) => ({
                    type: "function" as const,
                    function: { name: t.name, description: t.description, parameters: t.parameters },
                  })),
                  ...(request.toolChoice ? { tool_choice: request.toolChoice } : {}),
                }
              : {}),
          },
          { signal: call.signal },
        );
      } catch (error) {
        if (temperature !== undefined && refusesTemperature(error)) {
          temperatureRefused = true;
          return provider.complete(request, signal);
        }
        if (tools && refusesTools(error)) {
          toolsRefused = `the endpoint takes no tools (${(error as Error).message})`;
          return { ok: false, reason: toolsRefused, toolsRefused: true };
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

function refusesTools(error: unknown): boolean {
  return error instanceof BadRequestError && (error.param === "tools" || /\btool/i.test(error.message));
}

/** Our message as the API takes it: a tool turn names its call; an assistant turn that called tools carries them. */
function toWireMessage(message: ModelMessage): OpenAI.Chat.Completions.ChatCompletionMessageParam {
  if (message.role === "tool") return { role: "tool", content: message.content, tool_call_id: message.toolCallId ?? "" };
  if (message.role === "assistant" && message.toolCalls && message.toolCalls.length > 0)
    return {
      role: "assistant",
      content: message.content || null,
      tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
    };
  return { role: message.role, content: message.content };
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
  const toolCalls = (choice.message.tool_calls ?? []).flatMap((c) =>
    c.type === "function" ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
  );
  if (toolCalls.length > 0) return { ok: true, content: content ?? "", usage, toolCalls };
  if (!content || !content.trim()) {
    return { ok: false, reason: `the model returned an empty reply (finish_reason ${choice.finish_reason ?? "unknown"})`, usage };
  }
  return { ok: true, content, usage };
}
