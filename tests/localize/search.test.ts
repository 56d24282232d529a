import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RpgForgeError } from "../../src/errors.js";
import { createOpenAiEmbedder } from "../../src/llm/embeddings.js";
import { EmbeddingCacheFileSchema } from "../../src/localize/embedding-cache.js";
import { renderSearchResult } from "../../src/localize/render.js";
import { RpgSearch } from "../../src/localize/search.js";
import { stem, splitWords } from "../../src/localize/tokenize.js";
import type { Rpg, RpgNode } from "../../src/rpg/schema.js";
import { errorReply, startFakeOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { conceptVector } from "./embedding-vectors.js";

const FIXTURE = new URL("../fixtures/localize/stats-rpg.json", import.meta.url);
const loadFixture = (): Rpg => JSON.parse(readFileSync(FIXTURE, "utf8")) as Rpg;
const KEY = "sk-test-embeddings-0123456789SECRET";

const servers: FakeOpenAi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const tempDir = useTempDirs();

/** A fake endpoint whose embeddings are conceptVector's; chat completions are not used here. */
async function embeddingServer(): Promise<FakeOpenAi> {
  const server = await startFakeOpenAi(() => errorReply(400, "chat is not used by these tests"), {
    embeddings: (input) => input.map(conceptVector),
  });
  servers.push(server);
  return server;
}
const embedderAt = (server: FakeOpenAi) => createOpenAiEmbedder({ apiKey: KEY, baseURL: server.url, model: "embed-test" });

const leaf = (id: string, name: string, docstring: string, subgraph = "widgets"): RpgNode => ({
  id,
  name,
  type: "function",
  node_type: "leaf",
  file_path: "src/pkg/widgets.py",
  docstring,
  dependencies: [],
  subgraph_id: subgraph,
});

describe("words", () => {
  it("splits snake_case, CamelCase, acronyms and digits into lower-case words", () => {
    expect(splitWords("calculate_mean")).toEqual(["calculate", "mean"]);
    expect(splitWords("parseJSONFile")).toEqual(["parse", "json", "file"]);
    expect(splitWords("HTTPServer2Config")).toEqual(["http", "server", "2", "config"]);
  });

  it("stems the forms of a word to one, and leaves short words whole", () => {
    const forms = ["calculate", "calculated", "calculates", "calculating", "calculation"].map(stem);
    expect(new Set(forms).size).toBe(1);
    expect(stem("values")).toBe(stem("value"));
    expect(stem("string")).toBe("string");
    expect(stem("class")).toBe("class");
  });
});

describe("RpgSearch offline (BM25)", () => {
  it('test_fuzzy_search_exact_match: "calculate mean" finds calculate_mean first, with the words it matched', () => {
    const result = new RpgSearch(loadFixture()).searchOffline("calculate mean", { scope: "all" });
    expect(result.ranking).toBe("bm25");
    expect(result.hits[0]).toMatchObject({ id: "stats.calculate_mean", name: "calculate_mean", matched: ["calculate", "mean"] });
    expect(result.hits[0]!.preview).toBe("Return the arithmetic **mean** of numbers: their sum divided by their count.");
    // Partial matches come after, in score order.
    const scores = result.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBeGreaterThan(scores[1]!);
  });

  it('finds calculate_mean for "where is the mean calculated" (stopwords dropped, forms stemmed)', () => {
    const result = new RpgSearch(loadFixture()).searchOffline("where is the mean calculated", { scope: "all" });
    expect(result.hits[0]?.id).toBe("stats.calculate_mean");
  });

  it("searches the given subgraph only, unless asked for all", () => {
    const search = new RpgSearch(loadFixture());
    const scoped = search.searchOffline("comma separated numbers", { scope: { subgraph: "stats" } });
    expect(scoped.hits.map((h) => h.subgraphId)).not.toContain("validation");
    expect(scoped.hits.length).toBeGreaterThan(0);
    const all = search.searchOffline("comma separated numbers", { scope: "all" });
    expect(all.hits[0]?.id).toBe("validation.parse_numbers");
  });

  it("refuses a subgraph the RPG does not have, naming the ones it has", () => {
    const search = new RpgSearch(loadFixture());
    expect(() => search.searchOffline("mean", { scope: { subgraph: "nope" } })).toThrow(
      expect.objectContaining({ code: "LOCALIZE_UNKNOWN_SUBGRAPH", message: expect.stringContaining("report, stats, validation") }),
    );
  });

  it("returns the top 5, and every node that ties the fifth score", () => {
    const rpg: Rpg = {
      nodes: [
        ...["a", "b", "c", "d"].map((x) => leaf(`w.${x}`, `format_widget_${x}`, "Lay out one thing.")),
        ...["e", "f", "g"].map((x) => leaf(`w.${x}`, `helper_${x}`, "Format the widget.")),
        leaf("w.h", "helper_h", "Widget."),
      ],
      edges: [],
      metadata: {},
    };
    const hits = new RpgSearch(rpg).searchOffline("format widget", { scope: "all" }).hits;
    expect(hits.map((h) => h.id)).toEqual(["w.a", "w.b", "w.c", "w.d", "w.e", "w.f", "w.g"]);
    expect(new Set(hits.slice(4).map((h) => h.score)).size).toBe(1);
    expect(hits[3]!.score).toBeGreaterThan(hits[4]!.score);
  });

  it("returns nothing, not everything, for a query none of the nodes' words match", () => {
    const result = new RpgSearch(loadFixture()).searchOffline("average", { scope: "all" });
    expect(result.hits).toEqual([]);
  });

  it("renders the hits with score, signature, highlighted preview and matched words", () => {
    const text = renderSearchResult(new RpgSearch(loadFixture()).searchOffline("calculate mean", { scope: { subgraph: "stats" } }));
    expect(text).toContain('Search "calculate mean" in subgraph stats, ranked by BM25, offline: 3 matches');
    expect(text).toMatch(/ 1\. stats\.calculate_mean\s+\d\.\d{4}\s+\[stats\] src\/stats_kit\/descriptive\.py\n {6}def calculate_mean/);
    expect(text).toContain("      matched: calculate, mean\n");
  });
});

describe("RpgSearch with embeddings", () => {
  it('test_fuzzy_search_semantic: "average" finds calculate_mean, which BM25 cannot', async () => {
    const server = await embeddingServer();
    const search = new RpgSearch(loadFixture(), { embedder: embedderAt(server) });

    const result = await search.search("average", { scope: "all" });

    expect(search.searchOffline("average", { scope: "all" }).hits).toEqual([]);
    expect(result).toMatchObject({ ranking: "embeddings", model: "embed-test" });
    expect(result.fallback).toBeUndefined();
    expect(result.hits[0]?.id).toBe("stats.calculate_mean");
    expect(result.hits[0]!.score).toBeGreaterThan(result.hits[1]!.score);
    // One request embeds every leaf (not the composites), one the query.
    const sent = server.requests.map((r) => r.body);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({ model: "embed-test", encoding_format: "float" });
    expect(sent[0]!["input"]).toHaveLength(7);
    expect(sent[1]!["input"]).toEqual(["average"]);
  });

  it("embeds the RPG once per search object, and a repeated query not at all", async () => {
    const server = await embeddingServer();
    const search = new RpgSearch(loadFixture(), { embedder: embedderAt(server) });
    await search.search("average", { scope: "all" });
    await search.search("average", { scope: { subgraph: "stats" } });
    await search.search("middle value", { scope: "all" });
    expect(server.requests.map((r) => (r.body["input"] as string[]).length)).toEqual([7, 1, 1]);
  });

  it("keeps the vectors in the cache file, reused by the next process and ignored once a docstring changes", async () => {
    const server = await embeddingServer();
    const cacheFile = join(tempDir(), "embeddings.json");
    await new RpgSearch(loadFixture(), { embedder: embedderAt(server), cacheFile }).search("average", { scope: "all" });
    const stored = EmbeddingCacheFileSchema.parse(JSON.parse(readFileSync(cacheFile, "utf8")));
    expect(stored).toMatchObject({ version: 1, model: "embed-test", dimensions: 8 });
    expect(Object.keys(stored.vectors)).toHaveLength(7);

    const again = await new RpgSearch(loadFixture(), { embedder: embedderAt(server), cacheFile }).search("average", { scope: "all" });
    expect(again.hits[0]?.id).toBe("stats.calculate_mean");
    expect(server.requests).toHaveLength(3); // the query only

    const changed = loadFixture();
    changed.nodes.find((n) => n.id === "stats.count_values")!.docstring = "Tally the numbers.";
    await new RpgSearch(changed, { embedder: embedderAt(server), cacheFile }).search("average", { scope: "all" });
    expect(server.requests.map((r) => (r.body["input"] as string[]).length)).toEqual([7, 1, 1, 7, 1]);
  });

  it("a cache file that cannot be written is a note, not a failure", async () => {
    const server = await embeddingServer();
    const dir = tempDir();
    writeFileSync(join(dir, "file"), "");
    const result = await new RpgSearch(loadFixture(), {
      embedder: embedderAt(server),
      cacheFile: join(dir, "file", "embeddings.json"),
    }).search("average", { scope: "all" });
    expect(result.hits[0]?.id).toBe("stats.calculate_mean");
    expect(result.notes).toEqual([expect.stringContaining("the embedding cache could not be written")]);
    expect(existsSync(join(dir, "file", "embeddings.json"))).toBe(false);
  });

  it("falls back to BM25, saying why, when the endpoint serves no embeddings", async () => {
    const server = await startFakeOpenAi(() => errorReply(400, "unused"));
    servers.push(server);
    const search = new RpgSearch(loadFixture(), { embedder: embedderAt(server) });
    const result = await search.search("calculate mean", { scope: "all" });
    expect(result.ranking).toBe("bm25");
    expect(result.fallback).toMatch(/404/);
    expect(result.hits[0]?.id).toBe("stats.calculate_mean");
    // The failure is remembered: the next search does not ask the endpoint again.
    await search.search("median", { scope: "all" });
    expect(server.requests).toHaveLength(1);
  });

  it("never puts the key in the fallback reason when the endpoint echoes it", async () => {
    const server = await startFakeOpenAi(() => errorReply(400, "unused"), {
      embeddings: () => errorReply(401, `Incorrect API key provided: ${KEY}`),
    });
    servers.push(server);
    const result = await new RpgSearch(loadFixture(), { embedder: embedderAt(server) }).search("average", { scope: "all" });
    expect(result.ranking).toBe("bm25");
    expect(result.fallback).toContain("401");
    expect(result.fallback).not.toContain(KEY);
  });

  it("lets an interrupt through instead of falling back", async () => {
    const server = await startFakeOpenAi(() => errorReply(400, "unused"), {
      embeddings: () => ({ status: 200, body: {}, delayMs: 5_000 }),
    });
    servers.push(server);
    const controller = new AbortController();
    const searching = new RpgSearch(loadFixture(), { embedder: embedderAt(server) }).search("average", {
      scope: "all",
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("interrupted by the user")), 50);
    await expect(searching).rejects.toThrow("interrupted by the user");
    await expect(searching).rejects.not.toBeInstanceOf(RpgForgeError);
  });
});
