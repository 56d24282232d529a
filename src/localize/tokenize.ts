/**
 * Words for the offline search. Identifiers are split where a person would read a word boundary
 * (`calculate_mean`, `parseJSONFile`, `utf8`), so "calculate mean" meets `calculate_mean`; words are
 * lower-cased and stemmed lightly, so "calculation" and "calculated" meet "calculate". See
 * docs/decisions/0025-localization.md for why the stemmer is this small.
 */

/** Words that carry no meaning in a query about code, and Python's keywords, which fill every signature. */
const STOPWORDS = new Set(
  (
    "a an and are as at be by can do does for from has have how i in into is it its me my of on or so that the their them " +
    "then there these this those to was what when where which who why will with find show look locate search code function " +
    "def class async return returns self cls none true false not lambda"
  ).split(" "),
);

// Lower-case runs, capitalised words, acronyms before a capitalised word (JSON in parseJSONFile), and digit runs.
const WORD = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g;

/** The words of a text as written, split at underscores, case changes, digits and punctuation; lower-cased. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.normalize("NFKC").matchAll(WORD)) words.push(match[0].toLowerCase());
  return words;
}

/**
 * Suffixes taken off, longest first, with what replaces them. Each is tried once, and only when at
 * least MIN_STEM letters remain, so that short words ("uses", "string") survive whole.
 */
const SUFFIXES: readonly [string, string][] = [
  ["izations", "ize"],
  ["ization", "ize"],
  ["ational", "ate"],
  ["ations", "ate"],
  ["ation", "ate"],
  ["ators", "ate"],
  ["ator", "ate"],
  ["ities", "ity"],
  ["ness", ""],
  ["ments", ""],
  ["ment", ""],
  ["ies", "y"],
  ["ing", ""],
  ["ed", ""],
  ["s", ""],
];
const MIN_STEM = 3;

/** A light suffix stripper: calculate, calculated, calculates, calculating and calculation all become "calculat". */
export function stem(word: string): string {
  let w = word;
  if (w.length <= MIN_STEM || /^\d+$/.test(w)) return w;
  for (const [suffix, replacement] of SUFFIXES) {
    if (!w.endsWith(suffix)) continue;
    // "class", "process": a double s is not a plural.
    if (suffix === "s" && (w.endsWith("ss") || w.endsWith("us") || w.endsWith("is"))) break;
    const base = w.slice(0, -suffix.length);
    if (base.length + replacement.length < MIN_STEM || base.length < MIN_STEM - 1) break;
    // "ing" and "ed" need a real stem before them: "string" and "need" keep their ending.
    if ((suffix === "ing" || suffix === "ed") && base.length < 4) break;
    w = base + replacement;
    break;
  }
  // A final e is dropped so that "parse" meets "parsing" and "value" meets "values".
  if (w.endsWith("e") && w.length > MIN_STEM) w = w.slice(0, -1);
  return w;
}

/** One word of a text: its stem (what is compared) and the word as written (what is shown). */
export interface Term {
  stem: string;
  word: string;
}

/** The terms of a text, stopwords left out, in order (repeats kept: they count). */
export function terms(text: string): Term[] {
  const out: Term[] = [];
  for (const word of splitWords(text)) {
    if (STOPWORDS.has(word)) continue;
    out.push({ stem: stem(word), word });
  }
  return out;
}
