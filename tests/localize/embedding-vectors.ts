/**
 * Vectors the fake embeddings endpoint answers with: one dimension per concept, counting the concept's words
 * in the text, so that texts about the same thing point the same way even when they share no word ("average"
 * and "the arithmetic mean"). The last dimension is a small constant, so that no text is a zero vector.
 */
const CONCEPTS: readonly (readonly string[])[] = [
  ["mean", "average", "arithmetic"],
  ["median", "middle", "midpoint"],
  ["deviation", "spread", "dispersion", "square"],
  ["check", "valid", "finite", "nan"],
  ["parse", "comma", "separated"],
  ["report", "render", "format"],
  ["count", "how many", "tally"],
];

export function conceptVector(text: string): number[] {
  const lower = text.toLowerCase();
  return [...CONCEPTS.map((words) => words.reduce((n, w) => n + (lower.split(w).length - 1), 0)), 0.1];
}
