import type { RequestKey } from "./provider.js";

/** Hands out request keys for one run: attempts count up per node and kind, from 1. */
export interface RequestKeys {
  next(nodeId: string, kind: string): RequestKey;
}

/**
 * One per run. The first request of a kind and every repair of it draw from the same
 * counter, so a repair never reuses the key of a later first request and a cassette
 * recorded in one run replays in the next.
 */
export function createRequestKeys(): RequestKeys {
  const counts = new Map<string, number>();
  return {
    next(nodeId, kind) {
      // JSON of the pair keeps "a:b"/"c" apart from "a"/"b:c".
      const id = JSON.stringify([nodeId, kind]);
      const attempt = (counts.get(id) ?? 0) + 1;
      counts.set(id, attempt);
      return { nodeId, kind, attempt };
    },
  };
}
