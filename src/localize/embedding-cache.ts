import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { writeFileAtomic } from "../workspace/atomic-write.js";

/**
 * The RPG's vectors, kept so that a run embeds its graph once: in memory for the life of the search, and in
 * a file when the caller names one (the engine: `.rpg-forge/embeddings.json` in the output, beside the
 * run's other state; decision 0025). The key is a hash of the model and every node's text, so a changed
 * docstring or another model misses, and a file written for another graph is never used.
 */
export const EmbeddingCacheFileSchema = z.object({
  version: z.literal(1),
  key: z.string().regex(/^[0-9a-f]{64}$/),
  model: z.string(),
  dimensions: z.number().int().positive(),
  /** node id -> the unit vector as little-endian float32, base64: a quarter the size of JSON numbers, and exact. */
  vectors: z.record(z.string(), z.string()),
});
export type EmbeddingCacheFile = z.infer<typeof EmbeddingCacheFileSchema>;

/** node id -> unit vector */
export type Vectors = ReadonlyMap<string, Float32Array>;

/** sha256 of the model and the (id, text) pairs in the order given; the caller gives them in id order. */
export function embeddingKey(model: string, texts: readonly (readonly [string, string])[]): string {
  return createHash("sha256")
    .update(JSON.stringify([model, texts]), "utf8")
    .digest("hex");
}

/** The vector scaled to length 1, so that a dot product is the cosine; a zero vector stays zero. */
export function unit(vector: readonly number[]): Float32Array {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return Float32Array.from(vector, (x) => (norm > 0 ? x / norm : 0));
}

export class EmbeddingCache {
  private readonly memory = new Map<string, Vectors>();

  /** `file`: where the vectors are kept between processes; none keeps them in memory only. */
  constructor(private readonly file?: string) {}

  /** The vectors stored under `key`, from memory or the file; undefined when there are none (or the file is unreadable or stale). */
  async get(key: string): Promise<Vectors | undefined> {
    const known = this.memory.get(key);
    if (known || !this.file) return known;
    let parsed: EmbeddingCacheFile;
    try {
      parsed = EmbeddingCacheFileSchema.parse(JSON.parse(await readFile(this.file, "utf8")));
    } catch {
      // Missing, corrupt or of an older format: the vectors are made again and the file rewritten.
      return undefined;
    }
    if (parsed.key !== key) return undefined;
    const vectors = new Map<string, Float32Array>();
    for (const [id, encoded] of Object.entries(parsed.vectors)) {
      const bytes = Buffer.from(encoded, "base64");
      if (bytes.length !== parsed.dimensions * 4) return undefined;
      const copy = new Uint8Array(bytes); // aligned for the Float32Array view
      vectors.set(id, new Float32Array(copy.buffer, 0, parsed.dimensions));
    }
    this.memory.set(key, vectors);
    return vectors;
  }

  /** Keeps the vectors; returns a warning when the file could not be written (the search goes on without it). */
  async put(key: string, model: string, vectors: Vectors): Promise<string | undefined> {
    this.memory.set(key, vectors);
    if (!this.file) return undefined;
    const first = vectors.values().next().value;
    const file: EmbeddingCacheFile = {
      version: 1,
      key,
      model,
      dimensions: first?.length ?? 1,
      vectors: Object.fromEntries(
        [...vectors].map(([id, v]) => [id, Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64")]),
      ),
    };
    try {
      await writeFileAtomic(this.file, `${JSON.stringify(file)}\n`);
      return undefined;
    } catch (error) {
      return `the embedding cache could not be written to ${this.file}: ${(error as Error).message}`;
    }
  }
}
