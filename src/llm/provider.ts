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

export interface ModelMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ModelRequest {
  key: RequestKey;
  /** Sent as response_format.json_schema.name; also part of the prompt hash. */
  schemaName: string;
  jsonSchema: Record<string, unknown>;
  messages: ModelMessage[];
  temperature?: number;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** ok:false is a failure of this one request that fails only the node (cassette miss, refusal, empty reply); run-level failures throw RpgForgeError. */
export type ModelResponse =
  | { ok: true; content: string; usage: TokenUsage }
  /** `final`: no later request of this node can succeed either (a cassette without the reply), so the node fails now. */
  | { ok: false; reason: string; usage?: TokenUsage; final?: true };

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
  const canonical = canonicalJson({ messages: request.messages, schemaName: request.schemaName });
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
