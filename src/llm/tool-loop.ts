import type { z } from "zod";
import {
  addUsage,
  ZERO_USAGE,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ToolCall,
  type ToolSpec,
} from "./provider.js";
import { askStructured, parseReply, repairRequest, type Exchange, type StructuredOptions, type StructuredResult } from "./structured.js";

/** The read-only tools a request offers, and what runs them: a tool's answer is text for the model, never a verdict. */
export interface ToolBox {
  specs: ToolSpec[];
  /** Runs one call; a call it cannot run (an unknown tool, bad arguments, a limit reached) answers with why, as text. */
  run(call: ToolCall): Promise<string>;
}

export interface ToolLoopOptions extends StructuredOptions {
  /** Rounds of tool calls before the model is asked to answer without tools; default 6. */
  maxRounds?: number;
  /** Required: every round is a request of its own, keyed from the caller's counter like a repair. */
  nextAttempt: () => number;
}

/** A structured result, and whether the endpoint refused the tools (the caller then asks again with the context inlined). */
export type ToolLoopResult<T> = StructuredResult<T> & { toolsRefused?: true; toolCalls: number };

const ANSWER_NOW = "You have used the tools you may. Answer now, with only the JSON object the schema asks for.";

/**
 * A structured request that offers tools: while the model calls them, each call runs (in order, so that a replay
 * sees the same answers in the same places) and its answer goes back as a tool turn, in a new request keyed from
 * the caller's counter; once the model answers, the answer is parsed and repaired like any other. After `maxRounds`
 * rounds of calls the model is asked to answer without tools.
 */
export async function askWithTools<T>(
  provider: ModelProvider,
  request: ModelRequest,
  schema: z.ZodType<T>,
  tools: ToolBox,
  options: ToolLoopOptions,
): Promise<ToolLoopResult<T>> {
  const exchanges: Exchange[] = [];
  let usage = { ...ZERO_USAGE };
  let calls = 0;
  let current: ModelRequest = { ...request, tools: tools.specs };
  for (let round = 0; round < (options.maxRounds ?? 6); round++) {
    const response = await provider.complete(current, options.signal);
    usage = addUsage(usage, response.usage);
    exchanges.push({ request: current, response });
    if (!response.ok) {
      const failed = { ok: false as const, reason: response.reason, usage, exchanges, toolCalls: calls };
      return {
        ...failed,
        ...(response.final ? { final: true as const } : {}),
        ...(response.toolsRefused ? { toolsRefused: true as const } : {}),
      };
    }
    if (!response.toolCalls || response.toolCalls.length === 0) {
      const checked = parseReply(response.content, schema);
      if (checked.ok) return { ok: true, value: checked.value, usage, exchanges, toolCalls: calls };
      exchanges.at(-1)!.error = checked.error;
      const repaired = await askStructured(
        provider,
        { ...repairRequest(current, response.content, checked.error, options.nextAttempt()), toolChoice: "none" },
        schema,
        {
          ...options,
          repairs: Math.max(0, (options.repairs ?? 1) - 1),
        },
      );
      return { ...repaired, usage: addUsage(usage, repaired.usage), exchanges: [...exchanges, ...repaired.exchanges], toolCalls: calls };
    }
    const answers: ModelMessage[] = [];
    for (const call of response.toolCalls) answers.push({ role: "tool", toolCallId: call.id, content: await tools.run(call) });
    calls += response.toolCalls.length;
    current = {
      ...current,
      key: { ...current.key, attempt: options.nextAttempt() },
      messages: [...current.messages, { role: "assistant", content: response.content, toolCalls: response.toolCalls }, ...answers],
    };
  }
  // The tools stay offered, since the conversation holds calls of them, but the model may call none.
  const final = await askStructured(
    provider,
    {
      ...current,
      toolChoice: "none",
      key: { ...current.key, attempt: options.nextAttempt() },
      messages: [...current.messages, { role: "user", content: ANSWER_NOW }],
    },
    schema,
    options,
  );
  return { ...final, usage: addUsage(usage, final.usage), exchanges: [...exchanges, ...final.exchanges], toolCalls: calls };
}
