import { createHash } from "node:crypto";

/**
 * Names one request within a run. A cassette keys its replies by this, not by the
 * prompt bytes, so that rewording a prompt does not invalidate recorded runs.
 */
export interface RequestKey {
  nodeId: string;
  kind: string;
  /** 1-based count of requests of this kind for this node in this run (repairs included). */
  attempt: number;
}

/** A tool the model asked to call: the function's name and its arguments as the JSON text the model wrote. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ModelMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** An assistant turn that called tools instead of answering. */
  toolCalls?: ToolCall[] | undefined;
  /** A tool turn: the call it answers. */
  toolCallId?: string | undefined;
}

/** A tool offered to the model (a function with a JSON-schema for its arguments); read-only tools only. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  key: RequestKey;
  /** Sent as response_format.json_schema.name; also part of the prompt hash. */
  schemaName: string;
  jsonSchema: Record<string, unknown>;
  messages: ModelMessage[];
  temperature?: number;
  /** Tools the model may call before it answers; the caller runs them and asks again (src/llm/tool-loop.ts). */
  tools?: ToolSpec[] | undefined;
  /** "none": the tools stay offered (the conversation holds calls of them) but the model must answer now. */
  toolChoice?: "none" | undefined;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** ok:false is a failure of this one request that fails only the node (cassette miss, refusal, empty reply); run-level failures throw RpgForgeError. */
export type ModelResponse =
  /** `toolCalls`: the model called tools instead of answering (content is then usually empty). */
  | { ok: true; content: string; usage: TokenUsage; toolCalls?: ToolCall[] }
  /**
   * `final`: no later request of this node can succeed either (a cassette without the reply), so the node fails now.
   * `toolsRefused`: the endpoint takes no tools; the caller asks again without them, the context inlined.
   */
  | { ok: false; reason: string; usage?: TokenUsage; final?: true; toolsRefused?: true };

/**
 * What the engine needs from a model. Implementations: the OpenAI-compatible HTTP
 * client, a cassette replay and a recorder wrapping either. An aborted signal makes
 * `complete` reject with the signal's reason, so the caller can tell an interrupt
 * from a failure.
 */
export interface ModelProvider {
  readonly description: string;
  complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse>;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

/** Sums token usage over exchanges; a missing usage counts as zero. */
export function addUsage(a: TokenUsage, b: TokenUsage | undefined): TokenUsage {
  if (!b) return { ...a };
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** sha256 hex of the messages + schema name (canonical JSON) */
export function promptHash(request: ModelRequest): string {
  // The JSON schema is left out on purpose: it follows from the schema name, and a
  // converter upgrade that reorders keywords should not count as a changed prompt.
  // Tools by name, and only when offered, so that the hashes of requests without tools stay what they were.
  const tools = request.tools && request.tools.length > 0 ? { tools: request.tools.map((t) => t.name) } : {};
  const canonical = canonicalJson({ messages: request.messages, schemaName: request.schemaName, ...tools });
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

/** JSON with object keys sorted at every depth, so equal values hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** `node X, kind Y, attempt N`: how every message names a request. */
export function describeKey(key: RequestKey): string {
  return `node ${key.nodeId}, kind ${key.kind}, attempt ${key.attempt}`;
}
