import { splitWords, stem } from "./tokenize.js";

const TOKEN = /[\p{L}\p{N}_]+/gu;

/**
 * Text with each word (or identifier) that holds one of `stems` marked **like this**: how the PRD's
 * "highlight matching keywords in node docstrings" reads in a terminal, a prompt and Markdown alike.
 */
export function highlight(text: string, stems: ReadonlySet<string>): string {
  if (stems.size === 0) return text;
  return text.replace(TOKEN, (token) => (splitWords(token).some((w) => stems.has(stem(w))) ? `**${token}**` : token));
}
