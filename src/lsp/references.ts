import { ReferencesRequest, type Location } from "vscode-languageserver-protocol/node";
import { LanguageServerFailure, type LanguageServer } from "./language-server.js";
import type { FileOutline, OutlineSymbol } from "./python-index.js";
import type { Repository } from "./repository.js";
import type { Reference, SymbolMatch } from "./schema.js";
import { splitLines } from "./symbols.js";
import { byCodeUnit } from "../rpg/code-unit-order.js";

/** A place a symbol is named: a file, a 1-based line and a 0-based UTF-16 column, as both backends find them. */
export interface Site {
  file: string;
  line: number;
  column: number;
}

/** The references of each target (by `file:line`), found by the language server at the target's name. */
export async function sitesWithServer(
  server: LanguageServer,
  repo: Repository,
  targets: readonly SymbolMatch[],
): Promise<Map<string, Site[]>> {
  const found = new Map<string, Site[]>();
  for (const target of targets) {
    const locations = await server.request<Location[] | null>(ReferencesRequest.method, {
      textDocument: { uri: repo.uri(target.file) },
      position: { line: target.line - 1, character: target.column - 1 },
      context: { includeDeclaration: false },
    });
    // null: the file is not in the server's program (its index is behind the disk), which an empty list is not.
    if (locations === null) throw new LanguageServerFailure(`pyright-langserver does not know ${target.file}`, false);
    const sites: Site[] = [];
    for (const location of locations) {
      const file = repo.relOf(location.uri);
      if (file !== undefined) sites.push({ file, line: location.range.start.line + 1, column: location.range.start.character });
    }
    found.set(keyOf(target), sites);
  }
  return found;
}

/** The references of each target as the parser finds them, every file parsed once for all targets. */
export async function sitesWithParser(
  repo: Repository,
  targets: readonly SymbolMatch[],
): Promise<{ sites: Map<string, Site[]>; inexact: string[] }> {
  const files = await Promise.all((await repo.pythonFiles()).map((rel) => repo.pythonFile(rel)));
  const found = new Map<string, Site[]>();
  const inexact: string[] = [];
  const answers = await repo.index.references(
    files,
    targets.map((t) => ({ path: t.file, qualname: t.qualname })),
  );
  targets.forEach((target, i) => {
    const answer = answers[i]!;
    if (!answer.ok) return found.set(keyOf(target), []);
    if (!answer.exact) inexact.push(target.qualname);
    found.set(
      keyOf(target),
      answer.sites.filter((s) => s.role !== "definition").map((s) => ({ file: s.path, line: s.line, column: s.column })),
    );
  });
  return { sites: found, inexact };
}

export const keyOf = (match: { file: string; line: number }): string => `${match.file}:${match.line}`;

/** Sites as the tools show them: each with its line, whether it is a call or an import, and the definition around it. */
export async function describeSites(repo: Repository, sites: readonly Site[]): Promise<Reference[]> {
  const outlines = await repo.outline([...new Set(sites.map((s) => s.file))].sort());
  const references: Reference[] = [];
  for (const site of sites) {
    const { text, outline } = outlines.get(site.file)!;
    const line = splitLines(text)[site.line - 1] ?? "";
    const after = line.slice(site.column).replace(/^[\p{L}\p{N}_]*/u, "");
    const inImport = outline.ok && outline.imports.some(([start, end]) => site.line >= start && site.line <= end);
    const enclosing = enclosingOf(outline, site);
    references.push({
      file: site.file,
      line: site.line,
      column: site.column + 1,
      kind: inImport ? "import" : /^\s*\(/.test(after) ? "call" : "reference",
      text: line.trim().slice(0, 200),
      enclosing: enclosing ? { qualname: enclosing.qualname, kind: enclosing.kind, line: enclosing.line } : null,
    });
  }
  // The model is shown this list: the same run must ask the same prompt on every machine.
  return references.sort((a, b) => byCodeUnit(a.file, b.file) || a.line - b.line || a.column - b.column);
}

/** The innermost definition whose lines hold the site (not one whose name the site is). */
export function enclosingOf(outline: FileOutline, site: Site): OutlineSymbol | undefined {
  if (!outline.ok) return undefined;
  let best: OutlineSymbol | undefined;
  for (const symbol of outline.symbols) {
    if (site.line < symbol.start || site.line > symbol.end) continue;
    if (symbol.line === site.line && symbol.column === site.column) continue;
    if (
      !best ||
      symbol.end - symbol.start < best.end - best.start ||
      (symbol.end - symbol.start === best.end - best.start && symbol.start > best.start)
    )
      best = symbol;
  }
  return best;
}
