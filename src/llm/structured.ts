import { zodResponseFormat } from "openai/helpers/zod";
import { z } from "zod";
import {
  addUsage,
  describeKey,
  ZERO_USAGE,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type TokenUsage,
} from "./provider.js";

/** One request and what came of it; `error` says why its reply was not accepted. */
export type Exchange = { request: ModelRequest; response: ModelResponse; error?: string };

export type StructuredResult<T> =
  | { ok: true; value: T; usage: TokenUsage; exchanges: Exchange[] }
  | { ok: false; reason: string; usage: TokenUsage; exchanges: Exchange[]; final?: true };

export interface StructuredOptions {
  /** How many times a reply that does not parse or validate is sent back with the error; default 1. */
  repairs?: number;
  /**
   * Allocates the attempt number of each repair request. A repair is another request
   * of the same node and kind, so it must draw from the caller's per-run counter
   * (see createRequestKeys): `request.key.attempt + 1` would collide with the next
   * first request of that kind. Required unless `repairs` is 0.
   */
  nextAttempt?: () => number;
  signal?: AbortSignal;
}

/** Sends a request, parses the reply as JSON and validates it with the zod schema. A reply that does not parse or validate is sent again once (configurable) with the validation error appended as a user message; if it still fails, returns ok:false with the reason. Every exchange (request, raw reply, usage, outcome) is returned for the caller to keep as an artifact. */
export async function askStructured<T>(
  provider: ModelProvider,
  request: ModelRequest,
  schema: z.ZodType<T>,
  options: StructuredOptions = {},
): Promise<StructuredResult<T>> {
  const repairs = options.repairs ?? 1;
  const { nextAttempt } = options;
  // Checked up front, not when a repair is first needed, so that a caller's own tests
  // catch a missing allocator even when the model behaves.
  if (repairs > 0 && !nextAttempt) throw new TypeError("askStructured: options.nextAttempt is required to key repair requests");

  const exchanges: Exchange[] = [];
  let usage = { ...ZERO_USAGE };
  let current = request;
  for (let round = 0; ; round++) {
    const response = await provider.complete(current, options.signal);
    usage = addUsage(usage, response.usage);
    if (!response.ok) {
      // A refusal, an empty reply or a rejected request: asking again the same way will not help.
      exchanges.push({ request: current, response });
      return response.final
        ? { ok: false, reason: response.reason, usage, exchanges, final: true }
        : { ok: false, reason: response.reason, usage, exchanges };
    }
    const checked = parseReply(response.content, schema);
    if (checked.ok) {
      exchanges.push({ request: current, response });
      return { ok: true, value: checked.value, usage, exchanges };
    }
    exchanges.push({ request: current, response, error: checked.error });
    if (round >= repairs) {
      const tries = round === 0 ? "" : ` (after ${round} ${round === 1 ? "repair" : "repairs"})`;
      return { ok: false, reason: `${describeKey(current.key)}: ${checked.error}${tries}`, usage, exchanges };
    }
    current = repairRequest(current, response.content, checked.error, nextAttempt!());
  }
}

/** The conversation so far, the rejected reply as the assistant's turn, and the error as the user's. */
export function repairRequest(previous: ModelRequest, reply: string, error: string, attempt: number): ModelRequest {
  return {
    ...previous,
    key: { ...previous.key, attempt },
    messages: [
      ...previous.messages,
      { role: "assistant", content: reply },
      {
        role: "user",
        content: `Your reply was not accepted: ${error}\nReply again with only a JSON object that matches the "${previous.schemaName}" schema.`,
      },
    ],
  };
}

export function parseReply<T>(content: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    return { ok: false, error: `the reply is not valid JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: `the reply does not match the schema:\n${z.prettifyError(parsed.error)}` };
}

/** The JSON schema to send for a zod schema, in the form OpenAI's strict mode accepts (every property required, additionalProperties false, no unsupported keywords); throws at startup if a schema cannot be made strict. */
export function strictJsonSchema(schema: z.ZodType): Record<string, unknown> {
  // The SDK's converter tracks the subset the API accepts (optional fields, records,
  // tuples, transforms and a non-object root are refused), so we do not keep our own.
  // Optional fields must be written .nullable(): strict mode has no optional properties.
  try {
    return zodResponseFormat(schema, "reply").json_schema.schema ?? {};
  } catch (error) {
    throw new TypeError(`a reply schema cannot be sent in strict mode: ${(error as Error).message}`, { cause: error });
  }
}
