import { PrepareRenameRequest, RenameRequest, type TextEdit, type WorkspaceEdit } from "vscode-languageserver-protocol/node";
import { LanguageServerFailure, type LanguageServer } from "./language-server.js";
import type { Site } from "./references.js";
import type { Repository } from "./repository.js";
import type { SymbolMatch } from "./schema.js";

/** A rename worked out and not yet written: each file's text before and after, and the places it renames. */
export interface RenamePlan {
  texts: Map<string, { before: string; after: string }>;
  sites: Site[];
  /** The parser renamed a class member by its attribute name, without types to tell which object's it is. */
  inexact: boolean;
}

/** The server's own cross-file rename (imports, `__all__` and attribute uses included), applied by us. */
export async function planRenameWithServer(
  server: LanguageServer,
  repo: Repository,
  match: SymbolMatch,
  newName: string,
): Promise<RenamePlan> {
  const at = { textDocument: { uri: repo.uri(match.file) }, position: { line: match.line - 1, character: match.column - 1 } };
  const range = await server.request<unknown>(PrepareRenameRequest.method, at);
  if (range === null) throw new LanguageServerFailure(`pyright-langserver cannot rename ${match.qualname}`, false);
  const edit = await server.request<WorkspaceEdit | null>(RenameRequest.method, { ...at, newName });
  const byFile = new Map<string, TextEdit[]>();
  const add = (uri: string, edits: readonly TextEdit[]): void => {
    const file = repo.relOf(uri);
    if (file === undefined) throw new LanguageServerFailure(`pyright-langserver's rename edits ${uri}, outside the repository`, false);
    byFile.set(file, [...(byFile.get(file) ?? []), ...edits]);
  };
  for (const change of edit?.documentChanges ?? []) {
    if (!("edits" in change)) throw new LanguageServerFailure("pyright-langserver's rename creates, renames or deletes files", false);
    add(
      change.textDocument.uri,
      change.edits.filter((e): e is TextEdit => "range" in e),
    );
  }
  for (const [uri, edits] of Object.entries(edit?.changes ?? {})) add(uri, edits);
  if (byFile.size === 0) throw new LanguageServerFailure(`pyright-langserver's rename of ${match.qualname} edits nothing`, false);
  return plan(repo, match, byFile, false);
}

/** The parser's rename: every place its references name the symbol, imports' `as` names left alone. */
export async function planRenameWithParser(repo: Repository, match: SymbolMatch, newName: string): Promise<RenamePlan> {
  const files = await Promise.all((await repo.pythonFiles()).map((rel) => repo.pythonFile(rel)));
  const [answer] = await repo.index.references(files, [{ path: match.file, qualname: match.qualname }]);
  if (!answer?.ok) throw new Error(answer?.message ?? "the parser found no references");
  const byFile = new Map<string, TextEdit[]>();
  const width = match.name.length;
  for (const site of answer.sites) {
    if (site.role === "alias") continue;
    const range = { start: { line: site.line - 1, character: site.column }, end: { line: site.line - 1, character: site.column + width } };
    byFile.set(site.path, [...(byFile.get(site.path) ?? []), { range, newText: newName }]);
  }
  return plan(repo, match, byFile, !answer.exact);
}

async function plan(repo: Repository, match: SymbolMatch, byFile: Map<string, TextEdit[]>, inexact: boolean): Promise<RenamePlan> {
  const texts = new Map<string, { before: string; after: string }>();
  const sites: Site[] = [];
  for (const file of [...byFile.keys()].sort()) {
    const before = await repo.read(file);
    const edits = byFile.get(file)!;
    const after = applyEdits(before, edits, match.name);
    // The server read the file before it changed on disk: its edits would land beside the name.
    if (after === undefined)
      throw new LanguageServerFailure(`the rename's edits of ${file} do not fall on ${match.name}: the index is behind the disk`, false);
    texts.set(file, { before, after });
    for (const e of edits) sites.push({ file, line: e.range.start.line + 1, column: e.range.start.character });
  }
  return { texts, sites, inexact };
}

/** Offsets of each line's first character, lines broken as LSP breaks them (\r\n, \r, \n). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (const m of text.matchAll(/\r\n|\r|\n/g)) starts.push(m.index + m[0].length);
  return starts;
}

/**
 * `text` with the edits made (positions in UTF-16 units, as JavaScript strings count them), or undefined when an
 * edit's range does not hold `expected` or two edits overlap.
 */
export function applyEdits(text: string, edits: readonly TextEdit[], expected: string): string | undefined {
  const starts = lineStarts(text);
  const offset = (p: { line: number; character: number }): number | undefined => {
    const start = starts[p.line];
    return start === undefined ? undefined : start + p.character;
  };
  const spans: { from: number; to: number; newText: string }[] = [];
  for (const e of edits) {
    const from = offset(e.range.start);
    const to = offset(e.range.end);
    if (from === undefined || to === undefined || text.slice(from, to) !== expected) return undefined;
    spans.push({ from, to, newText: e.newText });
  }
  spans.sort((a, b) => b.from - a.from);
  let out = text;
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!;
    if (i > 0 && span.to > spans[i - 1]!.from) return undefined;
    out = out.slice(0, span.from) + span.newText + out.slice(span.to);
  }
  return out;
}
