import { RpgForgeError } from "../errors.js";
import type { TextEmbedder } from "../llm/embeddings.js";
import { compareIds } from "../rpg/ids.js";
import type { Rpg } from "../rpg/schema.js";
import { Bm25Index } from "./bm25.js";
import { searchDocuments, type SearchDocument } from "./documents.js";
import { EmbeddingCache, embeddingKey, unit, type Vectors } from "./embedding-cache.js";
import { highlight } from "./highlight.js";
import { terms } from "./tokenize.js";

/** The PRD's top five; more when the fifth place is shared (every node with the fifth score is returned). */
export const SEARCH_LIMIT = 5;

/** The current subgraph (the debug loop's default), or the whole RPG. */
export type SearchScope = { subgraph: string } | "all";

export interface SearchHit {
  id: string;
  name: string;
  subgraphId: string;
  filePath: string;
  signature?: string;
  /** BM25 score or cosine similarity, rounded to 4 decimals; ties are judged on this rounded figure. */
  score: number;
  /** The node's own words that the query's words matched (after stemming), in the query's order. */
  matched: string[];
  /** The docstring's first line, matched words marked **like this**. */
  preview: string;
}

export interface SearchResult {
  query: string;
  scope: SearchScope;
  ranking: "bm25" | "embeddings";
  /** The embedding model, when ranked by embeddings. */
  model?: string;
  /** Why the offline ranking was used though an embedder was given. */
  fallback?: string;
  /** Anything else worth knowing (a cache file that could not be written). */
  notes: string[];
  hits: SearchHit[];
}

export interface RpgSearchOptions {
  /** Rank by meaning with this embedder; without one the ranking is BM25, offline. */
  embedder?: TextEmbedder;
  /** Keep the RPG's vectors in this file between processes (see EmbeddingCache). */
  cacheFile?: string;
}

export interface SearchOptions {
  scope: SearchScope;
  /** Default SEARCH_LIMIT. */
  limit?: number;
  signal?: AbortSignal;
}

/**
 * Natural-language search over an RPG's leaves, by name, signature and docstring. Built once per RPG: the
 * BM25 statistics cover every leaf (so a term's weight does not change with the scope), and the vectors
 * are made on the first search that asks for them.
 */
export class RpgSearch {
  private readonly docs: SearchDocument[];
  private readonly byId: Map<string, SearchDocument>;
  private readonly bm25: Bm25Index;
  private readonly subgraphIds: string[];
  private readonly cache: EmbeddingCache;
  private docVectors: Promise<Vectors | { failed: string }> | undefined;
  private readonly queryVectors = new Map<string, Float32Array>();

  constructor(
    rpg: Pick<Rpg, "nodes">,
    private readonly options: RpgSearchOptions = {},
  ) {
    this.docs = searchDocuments(rpg);
    this.byId = new Map(this.docs.map((d) => [d.id, d]));
    this.bm25 = new Bm25Index(this.docs.map((d) => d.bm25));
    this.subgraphIds = [...new Set(rpg.nodes.map((n) => n.subgraph_id))].sort(compareIds);
    this.cache = new EmbeddingCache(options.cacheFile);
  }

  /** The subgraph ids a scope may name, sorted. */
  get subgraphs(): readonly string[] {
    return this.subgraphIds;
  }

  /** Ranks by embeddings when an embedder was given and answers, else offline; never fails for the endpoint's sake. */
  async search(query: string, options: SearchOptions): Promise<SearchResult> {
    const inScope = this.scoped(options.scope);
    const embedder = this.options.embedder;
    if (!embedder || query.trim() === "") return this.searchOffline(query, options);
    const notes: string[] = [];
    const vectors = await this.vectorsOf(embedder, notes, options.signal);
    const queryVector = "failed" in vectors ? vectors : await this.queryVector(embedder, query, options.signal);
    if ("failed" in queryVector) return { ...this.searchOffline(query, options), fallback: queryVector.failed };
    const scores = new Map<string, number>();
    for (const doc of inScope) {
      const v = (vectors as Vectors).get(doc.id);
      if (v) scores.set(doc.id, dot(queryVector, v));
    }
    return {
      query,
      scope: options.scope,
      ranking: "embeddings",
      model: embedder.model,
      notes,
      hits: this.top(scores, query, options.limit),
    };
  }

  /** BM25 alone: synchronous, no network. */
  searchOffline(query: string, options: Omit<SearchOptions, "signal">): SearchResult {
    const inScope = this.scoped(options.scope);
    const scores = this.bm25.score(
      terms(query).map((t) => t.stem),
      inScope.map((d) => d.id),
    );
    return { query, scope: options.scope, ranking: "bm25", notes: [], hits: this.top(scores, query, options.limit) };
  }

  private scoped(scope: SearchScope): SearchDocument[] {
    if (scope === "all") return this.docs;
    if (!this.subgraphIds.includes(scope.subgraph))
      throw new RpgForgeError(
        "LOCALIZE_UNKNOWN_SUBGRAPH",
        `no subgraph "${scope.subgraph}" in the RPG; it has ${this.subgraphIds.join(", ") || "none"}`,
        { field: "subgraph_id" },
        "name one of the RPG's subgraph ids, or search them all",
      );
    return this.docs.filter((d) => d.subgraphId === scope.subgraph);
  }

  /** The best `limit` hits with a positive score, and every further hit that ties the last (rounded) score. */
  private top(scores: ReadonlyMap<string, number>, query: string, limit = SEARCH_LIMIT): SearchHit[] {
    const ranked = [...scores]
      .map(([id, score]) => ({ id, score: Math.round(score * 10_000) / 10_000 }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || compareIds(a.id, b.id));
    let end = Math.min(limit, ranked.length);
    while (end > 0 && end < ranked.length && ranked[end]!.score === ranked[end - 1]!.score) end++;
    const queryStems = terms(query).map((t) => t.stem);
    return ranked.slice(0, end).map(({ id, score }) => {
      const doc = this.byId.get(id)!;
      const matched = matchedWords(doc, queryStems);
      return {
        id,
        name: doc.name,
        subgraphId: doc.subgraphId,
        filePath: doc.filePath,
        ...(doc.signature !== undefined ? { signature: doc.signature } : {}),
        score,
        matched,
        preview: highlight(firstLine(doc.docstring), new Set(queryStems.filter((s) => doc.terms.some((t) => t.stem === s)))),
      };
    });
  }

  /** Every leaf's unit vector, embedded once per instance (or read from the cache); a failure is remembered, so the endpoint is not asked again. */
  private vectorsOf(embedder: TextEmbedder, notes: string[], signal?: AbortSignal): Promise<Vectors | { failed: string }> {
    this.docVectors ??= (async () => {
      const texts = this.docs.map((d) => [d.id, d.embedText] as const);
      const key = embeddingKey(embedder.model, texts);
      const cached = await this.cache.get(key);
      if (cached) return cached;
      const embedded = await guarded(
        () =>
          embedder.embed(
            texts.map(([, text]) => text),
            signal,
          ),
        signal,
      );
      if ("failed" in embedded) return embedded;
      const vectors = new Map(this.docs.map((d, i) => [d.id, unit(embedded[i]!)]));
      const warning = await this.cache.put(key, embedder.model, vectors);
      if (warning) notes.push(warning);
      return vectors;
    })().catch((error: unknown) => {
      // An interrupted first search must not leave every later one interrupted too.
      this.docVectors = undefined;
      throw error;
    });
    return this.docVectors;
  }

  private async queryVector(embedder: TextEmbedder, query: string, signal?: AbortSignal): Promise<Float32Array | { failed: string }> {
    const known = this.queryVectors.get(query);
    if (known) return known;
    const embedded = await guarded(() => embedder.embed([query], signal), signal);
    if ("failed" in embedded) return embedded;
    const vector = unit(embedded[0]!);
    // A debug loop asks a few dozen questions; the bound keeps a long-lived process from keeping them all.
    if (this.queryVectors.size >= 512) this.queryVectors.clear();
    this.queryVectors.set(query, vector);
    return vector;
  }
}

/**
 * The embedder's vectors, or why there are none: a refused request and a run-level endpoint error
 * (unreachable, 401, no such model) alike mean "rank offline". An interrupt still interrupts.
 */
async function guarded(
  call: () => ReturnType<TextEmbedder["embed"]>,
  signal: AbortSignal | undefined,
): Promise<number[][] | { failed: string }> {
  try {
    const result = await call();
    return result.ok ? result.vectors : { failed: result.reason };
  } catch (error) {
    if (signal?.aborted || !(error instanceof RpgForgeError)) throw error;
    return { failed: error.message };
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** The node's word for each query stem it holds (name first, then signature, then docstring), once each. */
function matchedWords(doc: SearchDocument, queryStems: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of queryStems) {
    const word = doc.terms.find((t) => t.stem === s)?.word;
    if (word !== undefined && !out.includes(word)) out.push(word);
  }
  return out;
}

function firstLine(text: string): string {
  return (
    text
      .split(/\r\n|\r|\n/)
      .map((l) => l.trim())
      .find((l) => l !== "") ?? ""
  );
}
