import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { RpgForgeError } from "../errors.js";
import {
  describeKey,
  promptHash,
  ZERO_USAGE,
  type ModelProvider,
  type ModelResponse,
  type RequestKey,
  type TokenUsage,
} from "./provider.js";

const UsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});

/**
 * One line of a cassette. Not strict: a later version may add fields (the model name,
 * a timestamp) and older readers should still replay its cassettes. `prompt_sha256` is
 * optional so that cassettes can be written by hand; recording always writes it, and a
 * strict replay refuses a line without it.
 */
export const CassetteLineSchema = z.object({
  key: z.object({ node_id: z.string().min(1), kind: z.string().min(1), attempt: z.number().int().positive() }),
  prompt_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected 64 lowercase hex digits")
    .optional(),
  response: z.union([
    z.object({
      content: z.string(),
      /** The tools the model called instead of answering; their results are in the next request's messages. */
      tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
    }),
    z.object({ error: z.string(), tools_refused: z.literal(true).optional() }),
  ]),
  usage: UsageSchema.optional(),
});
export type CassetteLine = z.infer<typeof CassetteLineSchema>;

interface CassetteEntry {
  line: number;
  /** Missing on a hand-written line; a strict replay refuses such a line. */
  promptSha256?: string;
  response: CassetteLine["response"];
  usage?: TokenUsage;
}

/** A loaded cassette: the recorded replies by request key. */
export interface Cassette {
  file: string;
  entries: ReadonlyMap<string, CassetteEntry>;
}

const idOf = (key: RequestKey): string => JSON.stringify([key.nodeId, key.kind, key.attempt]);

/** A cassette is JSON lines, one recorded exchange per line: {"key":{"node_id","kind","attempt"},"prompt_sha256"?,"response":{"content"}|{"error"},"usage"?:{...}}. Replies are keyed by node id, kind and attempt, not by prompt bytes, so improving a prompt does not invalidate cassettes; `prompt_sha256` may be left out of a hand-written line, and only a strict replay needs it. */
export async function loadCassette(file: string): Promise<Cassette> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what =
      code === "ENOENT"
        ? "the cassette file does not exist"
        : code === "EISDIR"
          ? "the cassette is a directory, not a file"
          : `the cassette file cannot be read (${code ?? (error as Error).message})`;
    throw new RpgForgeError("CASSETTE_NOT_FOUND", what, { file }, "record one with --record <file>, or check the path given to --replay", {
      cause: error,
    });
  }
  const entries = new Map<string, CassetteEntry>();
  const lines = text.split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (!raw.trim()) continue;
    const parsed = parseLine(raw, file, line);
    const key = { nodeId: parsed.key.node_id, kind: parsed.key.kind, attempt: parsed.key.attempt };
    // Appending to an existing cassette (a resumed run recording again) re-records
    // keys: the later line is the newer reply, so it wins.
    const entry: CassetteEntry = { line, response: parsed.response };
    if (parsed.prompt_sha256 !== undefined) entry.promptSha256 = parsed.prompt_sha256;
    if (parsed.usage) entry.usage = fromWireUsage(parsed.usage);
    entries.set(idOf(key), entry);
  }
  // Replaying nothing would fail every node one by one; an empty cassette is a wrong path or a failed recording.
  if (entries.size === 0) {
    throw new RpgForgeError(
      "CASSETTE_INVALID",
      "the cassette is empty: it holds no recorded exchange",
      { file },
      "check the path given to --replay, or record a cassette with --record <file>",
    );
  }
  return { file, entries };
}

function parseLine(raw: string, file: string, line: number): CassetteLine {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new RpgForgeError("CASSETTE_INVALID", `line ${line} is not valid JSON (${(error as Error).message})`, { file, line }, undefined, {
      cause: error,
    });
  }
  const parsed = CassetteLineSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(line)"}: ${issue.message}`);
  const field = parsed.error.issues[0]?.path.join(".");
  throw new RpgForgeError(
    "CASSETTE_INVALID",
    `line ${line} is not a recorded exchange: ${issues.join("; ")}`,
    { file, line, ...(field ? { field } : {}) },
    "each line must be {key:{node_id,kind,attempt}, prompt_sha256?, response:{content, tool_calls?}|{error, tools_refused?}, usage?}",
  );
}

export interface ReplayOptions {
  /** Fail a request whose prompt hash differs from the recorded one (a prompt changed since recording), or whose line records no hash. */
  strict?: boolean;
}

/** A provider answering from a cassette, offline. A miss or (strict) a changed prompt or a line without a hash fails only that node. */
export function createReplayProvider(cassette: Cassette, options: ReplayOptions = {}): ModelProvider {
  return {
    description: `replay of ${cassette.file}${options.strict ? " (strict)" : ""}`,
    async complete(request, signal) {
      if (signal?.aborted) throw signal.reason;
      const entry = cassette.entries.get(idOf(request.key));
      if (!entry) return { ok: false, reason: `cassette has no reply for ${describeKey(request.key)}`, final: true };
      const usage = entry.usage ? { ...entry.usage } : { ...ZERO_USAGE };
      if (options.strict) {
        if (entry.promptSha256 === undefined) {
          return {
            ok: false,
            reason: `cassette line ${entry.line} for ${describeKey(request.key)} has no prompt_sha256 to check the prompt against (strict replay)`,
            final: true,
          };
        }
        const hash = promptHash(request);
        if (hash !== entry.promptSha256) {
          return {
            ok: false,
            reason: `prompt changed since the cassette was recorded for ${describeKey(request.key)}: recorded ${entry.promptSha256}, now ${hash}`,
            final: true,
          };
        }
      }
      const recorded = entry.response;
      if ("content" in recorded)
        return recorded.tool_calls
          ? { ok: true, content: recorded.content, usage, toolCalls: recorded.tool_calls }
          : { ok: true, content: recorded.content, usage };
      return recorded.tools_refused
        ? { ok: false, reason: recorded.error, usage, toolsRefused: true }
        : { ok: false, reason: recorded.error, usage };
    },
  };
}

/** Wraps a provider and appends each exchange to `file` as one cassette line (creating the file), then returns the inner response; thrown run-level errors are not recorded. */
export function createRecordingProvider(inner: ModelProvider, file: string): ModelProvider {
  // Nodes may run concurrently: chaining the appends keeps every line whole and in
  // the order the replies arrived.
  // A failed write must not wedge the chain, so each link starts after the previous
  // one settles, whatever its outcome.
  let writes: Promise<void> = Promise.resolve();
  const append = (text: string): Promise<void> => {
    writes = writes
      .catch(() => undefined)
      .then(async () => {
        await mkdir(dirname(file), { recursive: true });
        await appendFile(file, text, "utf8");
      });
    return writes;
  };
  return {
    description: `${inner.description}, recording to ${file}`,
    async complete(request, signal) {
      const response = await inner.complete(request, signal);
      try {
        await append(`${JSON.stringify(toLine(request.key, promptHash(request), response))}\n`);
      } catch (error) {
        throw new RpgForgeError(
          "CASSETTE_WRITE_FAILED",
          `could not append to the cassette (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
          { file },
          "check that the directory is writable and the disk is not full",
          { cause: error },
        );
      }
      return response;
    },
  };
}

function toLine(key: RequestKey, hash: string, response: ModelResponse): CassetteLine {
  const line: CassetteLine = {
    key: { node_id: key.nodeId, kind: key.kind, attempt: key.attempt },
    prompt_sha256: hash,
    response: response.ok
      ? { content: response.content, ...(response.toolCalls ? { tool_calls: response.toolCalls } : {}) }
      : { error: response.reason, ...(response.toolsRefused ? { tools_refused: true as const } : {}) },
  };
  if (response.usage) line.usage = toWireUsage(response.usage);
  return line;
}

function toWireUsage(usage: TokenUsage): z.infer<typeof UsageSchema> {
  return { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.totalTokens };
}

function fromWireUsage(usage: z.infer<typeof UsageSchema>): TokenUsage {
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens };
}
