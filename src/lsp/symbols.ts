import { WorkspaceSymbolRequest, type SymbolInformation, type WorkspaceSymbol } from "vscode-languageserver-protocol/node";
import type { LanguageServer } from "./language-server.js";
import type { OutlineSymbol } from "./python-index.js";
import type { Repository } from "./repository.js";
import type { SymbolMatch } from "./schema.js";

/** A symbol by name (`calculate_mean`, `Class.method`), optionally in one file, or on one line of it. */
export type SymbolQuery = string | { name: string; file?: string; line?: number };

export interface NormalQuery {
  qualname: string;
  file?: string;
  line?: number;
}

export function normalQuery(query: SymbolQuery): NormalQuery {
  return typeof query === "string" ? { qualname: query.trim() } : { ...query, qualname: query.name.trim() };
}

/** How many lines of a definition a match shows. */
const PREVIEW_LINES = 15;

export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** A match as the tools show it, from the parser's outline entry and the file's text. */
export function matchOf(file: string, entry: OutlineSymbol, text: string): SymbolMatch {
  const lines = splitLines(text).slice(entry.start - 1, entry.end);
  const shown = lines.slice(0, PREVIEW_LINES);
  if (lines.length > shown.length) shown.push(`    ... (${lines.length - shown.length} more lines)`);
  return {
    name: entry.name,
    qualname: entry.qualname,
    kind: entry.kind,
    file,
    line: entry.line,
    column: entry.column + 1,
    startLine: entry.start,
    endLine: entry.end,
    signature: entry.signature,
    docstring: entry.docstring,
    preview: shown.join("\n"),
  };
}

/** The definitions of `query` in `files`, as the parser reads them now. */
export async function matchesIn(repo: Repository, files: readonly string[], query: NormalQuery): Promise<SymbolMatch[]> {
  const wanted = files.filter((f) => query.file === undefined || f === query.file);
  const outlines = await repo.outline(wanted);
  const matches: SymbolMatch[] = [];
  for (const file of wanted) {
    const { text, outline } = outlines.get(file)!;
    if (!outline.ok) continue;
    for (const entry of outline.symbols)
      if (entry.qualname === query.qualname && (query.line === undefined || entry.line === query.line))
        matches.push(matchOf(file, entry, text));
  }
  return matches;
}

/**
 * The language server's index says which files define the name (workspace/symbol, then the container for
 * `Class.method`); the parser reads those files for the exact header, docstring and body. The server's fuzzy matches
 * are narrowed to the exact name.
 */
export async function findWithServer(server: LanguageServer, repo: Repository, query: NormalQuery): Promise<SymbolMatch[]> {
  const parts = query.qualname.split(".");
  const name = parts.at(-1)!;
  const container = parts.at(-2);
  const found =
    (await server.request<SymbolInformation[] | WorkspaceSymbol[] | null>(WorkspaceSymbolRequest.method, { query: name })) ?? [];
  const files = new Set<string>();
  for (const symbol of found) {
    if (symbol.name !== name || (container !== undefined && symbol.containerName !== container)) continue;
    const rel = repo.relOf(symbol.location.uri);
    if (rel !== undefined) files.add(rel);
  }
  return matchesIn(repo, [...files].sort(), query);
}

/** Every file read by the parser: what the server's index would have said. */
export async function findWithParser(repo: Repository, query: NormalQuery): Promise<SymbolMatch[]> {
  return matchesIn(repo, query.file !== undefined ? [query.file] : await repo.pythonFiles(), query);
}
