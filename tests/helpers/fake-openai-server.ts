import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI chat completions API, so tests
 * drive the real `openai` SDK over a socket (retries, timeouts, error classes and all)
 * instead of mocking it. Response shapes follow the API reference for
 * POST /v1/chat/completions and its error object.
 */

/** A completion: the server wraps it in a full chat.completion object. */
export interface FakeReply {
  content?: string | null;
  refusal?: string;
  finishReason?: "stop" | "length" | "content_filter" | "tool_calls";
  /** Function calls instead of an answer (finish_reason "tool_calls"), as the API sends them. */
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** Omit for a default usage; null for a server that sends none. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number } | null;
  /** Milliseconds to wait before answering (to provoke the client's timeout). */
  delayMs?: number;
}

/** Any HTTP reply, sent as is (body JSON-encoded unless a string). */
export interface RawReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body: model, messages, response_format, ... */
  body: Record<string, unknown>;
}

export type FakeHandler = (body: Record<string, unknown>, request: ReceivedRequest) => FakeReply | RawReply | Promise<FakeReply | RawReply>;

/**
 * Answers POST /v1/embeddings: one vector per input text, in order, or any HTTP reply. The server wraps the
 * vectors in the API's list object (as floats, or base64 float32 when the request asks for base64, as the SDK
 * does by default).
 */
export type EmbeddingsHandler = (
  input: string[],
  body: Record<string, unknown>,
  request: ReceivedRequest,
) => number[][] | RawReply | Promise<number[][] | RawReply>;

export interface FakeOpenAiOptions {
  /** Serve the embeddings route; without it /v1/embeddings is a 404 like any unknown route. */
  embeddings?: EmbeddingsHandler;
}

export interface FakeOpenAi {
  /** The API root to pass as baseURL; ends in /v1. */
  url: string;
  /** Every request received, in order, including retried ones. */
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

const DEFAULT_USAGE: NonNullable<FakeReply["usage"]> = { prompt_tokens: 11, completion_tokens: 7 };

/** An OpenAI-shaped error reply. Retryable statuses say retry-after-ms: 1 so the SDK's backoff stays fast in tests. */
export function errorReply(
  status: number,
  message: string,
  options: { type?: string; code?: string | null; param?: string | null; headers?: Record<string, string> } = {},
): RawReply {
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  return {
    status,
    body: { error: { message, type: options.type ?? "invalid_request_error", param: options.param ?? null, code: options.code ?? null } },
    headers: { ...(retryable ? { "retry-after-ms": "1" } : {}), ...options.headers },
  };
}

export async function startFakeOpenAi(handler: FakeHandler, options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const requests: ReceivedRequest[] = [];
  let served = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const path = req.url ?? "/";
        let body: Record<string, unknown> = {};
        try {
          body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {};
        } catch {
          return send(res, errorReply(400, "fake server: request body is not JSON"));
        }
        const received: ReceivedRequest = { method: req.method ?? "GET", path, headers: req.headers, body };
        requests.push(received);
        if (req.method === "POST" && path === "/v1/embeddings" && options.embeddings) {
          const input = typeof body["input"] === "string" ? [body["input"]] : (body["input"] as string[]);
          try {
            const reply = await options.embeddings(input, body, received);
            if (!Array.isArray(reply) && reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
            return send(res, Array.isArray(reply) ? embeddingList(reply, body) : reply);
          } catch (error) {
            return send(res, {
              ...errorReply(500, `fake server handler threw: ${(error as Error).message}`),
              headers: { "x-should-retry": "false" },
            });
          }
        }
        if (req.method !== "POST" || path !== "/v1/chat/completions") {
          return send(res, errorReply(404, `fake server: no route ${req.method} ${path}`, { code: "unknown_url" }));
        }
        let reply: FakeReply | RawReply;
        try {
          reply = await handler(body, received);
        } catch (error) {
          return send(res, {
            ...errorReply(500, `fake server handler threw: ${(error as Error).message}`),
            headers: { "x-should-retry": "false" },
          });
        }
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        served++;
        send(res, "status" in reply ? reply : completion(reply, String(body["model"] ?? "unknown"), served));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Drops keep-alive sockets and requests a test abandoned mid-delay.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Answers the nth request with the nth reply; a request past the script gets a 400 that names it. */
export async function startScriptedOpenAi(replies: Array<FakeReply | RawReply>): Promise<FakeOpenAi> {
  let next = 0;
  return startFakeOpenAi(() => {
    const reply = replies[next++];
    return reply ?? errorReply(400, `fake server: request ${next} is past the ${replies.length} scripted replies`);
  });
}

/** A port nothing listens on: bound, then released. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

function completion(reply: FakeReply, model: string, n: number): RawReply {
  const usage = reply.usage === undefined ? DEFAULT_USAGE : reply.usage;
  return {
    status: 200,
    body: {
      id: `chatcmpl-fake${String(n).padStart(6, "0")}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.refusal !== undefined ? null : (reply.content ?? null),
            refusal: reply.refusal ?? null,
            annotations: [],
            ...(reply.toolCalls
              ? {
                  tool_calls: reply.toolCalls.map((c) => ({
                    id: c.id,
                    type: "function",
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: reply.finishReason ?? (reply.toolCalls ? "tool_calls" : "stop"),
        },
      ],
      ...(usage === null
        ? {}
        : {
            usage: {
              prompt_tokens: usage.prompt_tokens,
              completion_tokens: usage.completion_tokens,
              total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
              prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
              completion_tokens_details: {
                reasoning_tokens: 0,
                audio_tokens: 0,
                accepted_prediction_tokens: 0,
                rejected_prediction_tokens: 0,
              },
            },
          }),
      service_tier: "default",
      system_fingerprint: "fp_fake",
    },
  };
}

function embeddingList(vectors: number[][], body: Record<string, unknown>): RawReply {
  const base64 = body["encoding_format"] === "base64";
  const tokens = vectors.length * 8;
  return {
    status: 200,
    body: {
      object: "list",
      data: vectors.map((vector, index) => ({
        object: "embedding",
        index,
        embedding: base64 ? Buffer.from(Float32Array.from(vector).buffer).toString("base64") : vector,
      })),
      model: String(body["model"] ?? "unknown"),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

function send(res: ServerResponse, reply: RawReply): void {
  // The client may have timed out and hung up while we waited.
  if (res.destroyed || res.writableEnded) return;
  const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
  res.writeHead(reply.status, {
    "content-type": "application/json",
    "x-request-id": `req_fake_${Date.now().toString(36)}`,
    ...reply.headers,
  });
  res.end(text);
}
