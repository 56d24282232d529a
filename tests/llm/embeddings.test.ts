import { afterEach, describe, expect, it } from "vitest";
import { createOpenAiEmbedder, DEFAULT_EMBEDDING_MODEL, resolveEmbeddingConfig } from "../../src/llm/embeddings.js";
import { errorReply, startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { failure } from "../helpers/errors.js";

const KEY = "sk-test-embeddings-0123456789SECRET";
const servers: FakeOpenAi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(embeddings: Parameters<typeof startFakeOpenAi>[1]): Promise<FakeOpenAi> {
  const server = await startFakeOpenAi(() => errorReply(400, "chat is not used here"), embeddings);
  servers.push(server);
  return server;
}

describe("resolveEmbeddingConfig", () => {
  it("is undefined without an endpoint, so that search ranks offline", () => {
    expect(resolveEmbeddingConfig({})).toBeUndefined();
    expect(resolveEmbeddingConfig({ OPENAI_API_KEY: " ", OPENAI_BASE_URL: "" })).toBeUndefined();
  });

  it("takes the model's endpoint with an embedding model: flag, then RPG_FORGE_EMBEDDING_MODEL, then the default", () => {
    const env = { OPENAI_BASE_URL: "http://localhost:11434/v1", RPG_FORGE_MODEL: "llama3" };
    expect(resolveEmbeddingConfig(env)).toEqual({
      apiKey: "no-key-needed",
      baseURL: "http://localhost:11434/v1",
      model: DEFAULT_EMBEDDING_MODEL,
    });
    expect(resolveEmbeddingConfig({ ...env, RPG_FORGE_EMBEDDING_MODEL: "nomic-embed-text" })?.model).toBe("nomic-embed-text");
    expect(resolveEmbeddingConfig({ ...env, RPG_FORGE_EMBEDDING_MODEL: "x" }, { embeddingModel: "y" })?.model).toBe("y");
  });

  it("still refuses a malformed OPENAI_BASE_URL", () => {
    expect(() => resolveEmbeddingConfig({ OPENAI_BASE_URL: "localhost:8000" })).toThrow(
      expect.objectContaining({ code: "MODEL_NOT_CONFIGURED" }),
    );
  });
});

describe("createOpenAiEmbedder", () => {
  it("posts the texts as floats to /embeddings and returns one vector per text, in input order", async () => {
    const server = await serve({
      // Answered in reverse order: the index says where each vector goes.
      embeddings: (input) => ({
        status: 200,
        body: {
          object: "list",
          data: input.map((_, i) => ({ object: "embedding", index: i, embedding: [i, 1] })).reverse(),
          model: "m",
          usage: { prompt_tokens: 5, total_tokens: 5 },
        },
      }),
    });
    const embedder = createOpenAiEmbedder({ apiKey: KEY, baseURL: server.url, model: "embed-test" });

    const result = await embedder.embed(["one", "two", "three"]);

    expect(result).toEqual({
      ok: true,
      vectors: [
        [0, 1],
        [1, 1],
        [2, 1],
      ],
      usage: { promptTokens: 5, totalTokens: 5 },
    });
    expect(server.requests[0]).toMatchObject({
      path: "/v1/embeddings",
      body: { model: "embed-test", input: ["one", "two", "three"], encoding_format: "float" },
    });
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(embedder.description).toBe(`embed-test at ${server.url}`);
  });

  it("redacts secrets of the environment from the texts before they leave", async () => {
    const server = await serve({ embeddings: (input) => input.map(() => [1, 0]) });
    const embedder = createOpenAiEmbedder({ apiKey: KEY, baseURL: server.url, model: "m" }, { MY_TOKEN: "tok-abcdef-123456" });
    await embedder.embed(["uses tok-abcdef-123456 here", ""]);
    expect(server.requests[0]!.body["input"]).toEqual(["uses [redacted MY_TOKEN] here", " "]);
  });

  it("reports a reply with the wrong number of vectors as a failed request", async () => {
    const server = await serve({ embeddings: () => [[1, 2]] });
    const result = await createOpenAiEmbedder({ apiKey: KEY, baseURL: server.url, model: "m" }).embed(["a", "b"]);
    expect(result).toEqual({ ok: false, reason: "the endpoint returned 1 embeddings for 2 texts" });
  });

  it("throws MODEL_AUTH on a 401, with the key redacted", async () => {
    const server = await serve({ embeddings: () => errorReply(401, `Incorrect API key provided: ${KEY}`) });
    const error = await failure(createOpenAiEmbedder({ apiKey: KEY, baseURL: server.url, model: "m" }).embed(["a"]));
    expect(error.code).toBe("MODEL_AUTH");
    expect(error.message).not.toContain(KEY);
  });
});
