/**
 * Okapi BM25 over documents made of weighted fields (BM25F in its simplest form: a term's frequency
 * is the weighted sum of its counts in the fields, and so is a document's length). Fifty to a few
 * thousand short documents: a map per document is all the index this needs.
 */

/** k1: how fast repeats of a term stop adding; b: how much a long document is discounted. The usual values. */
export const BM25_PARAMS = { k1: 1.2, b: 0.75 } as const;

export interface Bm25Field {
  weight: number;
  /** The field's terms (stems), repeats kept. */
  terms: readonly string[];
}

export interface Bm25Document {
  id: string;
  fields: readonly Bm25Field[];
}

interface Indexed {
  /** stem -> weighted frequency */
  tf: Map<string, number>;
  length: number;
}

export class Bm25Index {
  private readonly docs = new Map<string, Indexed>();
  /** stem -> how many documents hold it */
  private readonly df = new Map<string, number>();
  private readonly averageLength: number;

  constructor(
    documents: readonly Bm25Document[],
    private readonly params: { k1: number; b: number } = BM25_PARAMS,
  ) {
    let total = 0;
    for (const doc of documents) {
      const tf = new Map<string, number>();
      let length = 0;
      for (const field of doc.fields) {
        for (const term of field.terms) tf.set(term, (tf.get(term) ?? 0) + field.weight);
        length += field.weight * field.terms.length;
      }
      for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
      this.docs.set(doc.id, { tf, length });
      total += length;
    }
    this.averageLength = documents.length > 0 ? total / documents.length : 0;
  }

  /**
   * Lucene's idf, ln(1 + (N - n + 0.5) / (n + 0.5)): always positive, so a term every document holds
   * still counts a little instead of subtracting (the original formula goes negative past half the corpus).
   */
  idf(term: string): number {
    const n = this.df.get(term) ?? 0;
    return Math.log(1 + (this.docs.size - n + 0.5) / (n + 0.5));
  }

  /** The score of each of `ids` for the query's distinct stems; a document that holds none of them scores 0. */
  score(queryStems: readonly string[], ids: Iterable<string>): Map<string, number> {
    const { k1, b } = this.params;
    const distinct = [...new Set(queryStems)];
    const scores = new Map<string, number>();
    for (const id of ids) {
      const doc = this.docs.get(id);
      if (!doc) continue;
      let score = 0;
      for (const term of distinct) {
        const tf = doc.tf.get(term);
        if (!tf) continue;
        const norm = this.averageLength > 0 ? 1 - b + (b * doc.length) / this.averageLength : 1;
        score += (this.idf(term) * tf * (k1 + 1)) / (tf + k1 * norm);
      }
      scores.set(id, score);
    }
    return scores;
  }
}
