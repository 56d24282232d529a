import { redactSecrets } from "../redact.js";
import type { ModelConfig } from "./config.js";
import { resolveModelConfig } from "./config.js";
import { createOpenAiClient, type OpenAiEndpointOptions } from "./openai-client.js";
import { mapOpenAiError } from "./openai-errors.js";

/** OpenAI's small embedding model: cheap, and what most compatible servers alias to their own. */
export const DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small";

/** Token counts an embedding request reports (it has no completion). */
export interface EmbeddingUsage {
  promptTokens: number;
  totalTokens: number;
}

/** ok:false is a refusal of this one request (400, 413, 422, a malformed reply); run-level failures throw RpgForgeError. */
export type EmbeddingResult = { ok: true; vectors: number[][]; usage: EmbeddingUsage } | { ok: false; reason: string };

/** What the localization needs to rank by meaning: one vector per text, in order. */
export interface TextEmbedder {
  /** The model: part of every cache key, since vectors of two models do not compare. */
  readonly model: string;
  readonly description: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddingResult>;
}

export interface EmbeddingFlags {
  /** --embedding-model; falls back to RPG_FORGE_EMBEDDING_MODEL, then DEFAULT_EMBEDDING_MODEL. */
  embeddingModel?: string | undefined;
}

/**
 * The endpoint to embed with: the one the model is configured with (OPENAI_API_KEY, OPENAI_BASE_URL) and an
 * embedding model of its own, since a chat model cannot embed. Undefined when no endpoint is configured: the
 * search then ranks offline. A malformed OPENAI_BASE_URL still throws MODEL_NOT_CONFIGURED.
 */
export function resolveEmbeddingConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: EmbeddingFlags = {},
): ModelConfig | undefined {
  if (!env["OPENAI_API_KEY"]?.trim() && !env["OPENAI_BASE_URL"]?.trim()) return undefined;
  const model = flags.embeddingModel?.trim() || env["RPG_FORGE_EMBEDDING_MODEL"]?.trim() || DEFAULT_EMBEDDING_MODEL;
  return resolveModelConfig(env, { model });
}

/** Inputs per request: far under OpenAI's 2,048, and small enough for local servers' request limits. */
const BATCH = 128;

/**
 * A TextEmbedder over the OpenAI embeddings API (`POST /embeddings`), which vLLM, Ollama and Azure's v1 API also
 * serve. Shorter limits than a chat completion (30 s, 2 retries): a search waits for it, and falls back to the
 * offline ranking when it fails. Texts are redacted before they leave, like prompts.
 */
export function createOpenAiEmbedder(options: OpenAiEndpointOptions, env: NodeJS.ProcessEnv = process.env): TextEmbedder {
  const { client, facts } = createOpenAiClient(options, { timeoutMs: 30_000, maxRetries: 2 });
  return {
    model: facts.model,
    description: `${facts.model} at ${facts.baseURL}`,
    async embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddingResult> {
      const vectors: number[][] = [];
      const usage: EmbeddingUsage = { promptTokens: 0, totalTokens: 0 };
      for (let start = 0; start < texts.length; start += BATCH) {
        // The API refuses an empty string; a blank text embeds as a single space.
        const input = texts.slice(start, start + BATCH).map((t) => redactSecrets(t, env) || " ");
        let response;
        try {
          // Floats, not the SDK's default base64: not every compatible server encodes base64.
          response = await client.embeddings.create({ model: facts.model, input, encoding_format: "float" }, { signal });
        } catch (error) {
          const mapped = mapOpenAiError(error, facts, signal);
          return { ok: false, reason: mapped.ok ? "the endpoint returned no embeddings" : mapped.reason };
        }
        const batch = readBatch(response, input.length);
        if (typeof batch === "string") return { ok: false, reason: batch };
        vectors.push(...batch);
        usage.promptTokens += response.usage?.prompt_tokens ?? 0;
        usage.totalTokens += response.usage?.total_tokens ?? 0;
      }
      const size = vectors[0]?.length;
      if (vectors.some((v) => v.length !== size)) return { ok: false, reason: "the endpoint returned vectors of different lengths" };
      return { ok: true, vectors, usage };
    },
  };
}

/** The vectors in input order (servers may answer out of order; `index` says where each goes), or what is wrong. */
function readBatch(response: { data?: { index?: number; embedding?: unknown }[] }, count: number): number[][] | string {
  const data = response.data ?? [];
  if (data.length !== count) return `the endpoint returned ${data.length} embeddings for ${count} texts`;
  const out: number[][] = new Array<number[]>(count);
  data.forEach((item, i) => {
    const at = typeof item.index === "number" ? item.index : i;
    if (Array.isArray(item.embedding) && item.embedding.every((x) => typeof x === "number" && Number.isFinite(x)))
      out[at] = item.embedding as number[];
  });
  for (let i = 0; i < count; i++)
    if (!out[i] || out[i]!.length === 0) return `embedding ${i} of the reply is missing or not a list of numbers`;
  return out;
}
