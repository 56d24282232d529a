import { realpath } from "node:fs/promises";
import { FileChangeType, type FileEvent } from "vscode-languageserver-protocol/node";
import type { Rpg } from "../rpg/schema.js";
import { compareDependencies, expectedSymbol } from "./dependency-check.js";
import { REQUEST_TIMEOUT_MS } from "./language-server.js";
import { PythonIndex, type TextEdit } from "./python-index.js";
import { describeSites, keyOf, sitesWithParser, sitesWithServer, type Site } from "./references.js";
import { planRenameWithParser, planRenameWithServer } from "./rename.js";
import { isListed, Repository } from "./repository.js";
import { ServerOrParser, type Answer } from "./server-or-parser.js";
import type { Backend, DependencyCheck, EditOutcome, EditRefusalCode, Reference, SymbolMatch } from "./schema.js";
import { findWithParser, findWithServer, matchesIn, normalQuery, type SymbolQuery } from "./symbols.js";

export interface CodeIntelligenceOptions {
  /** The generated repository. */
  root: string;
  /** The interpreter whose `ast` reads and checks the code (rpg-forge's helper worker). */
  python?: string;
  /** Per request to the language server; a server that takes longer is taken for hung. */
  requestTimeoutMs?: number;
  /** false: the parser only, no language server. */
  server?: boolean;
  /** Every warning, as it happens (the results carry theirs too). */
  onWarning?: (message: string) => void;
}

export type { Answer } from "./server-or-parser.js";

/** A symbol's definition: by name (`find_symbol`'s answer), or by the line it is defined on. */
export type SymbolTarget = SymbolQuery | { file: string; line: number; column?: number };

/**
 * The debugger's code intelligence on a generated repository (the PRD's epic 4.4): find a symbol, find who refers to
 * it, replace its body, insert code beside it, rename it across files. One pyright-langserver per run answers what it
 * can; Python's own parser reads what it does not (exact headers, bodies), checks every edit, and stands in for the
 * server, with a warning, when the server fails, exits or hangs. Call `close()` at the end of the run.
 */
export class CodeIntelligence {
  private constructor(
    private readonly repo: Repository,
    private readonly answers: ServerOrParser,
    /** The Python files the server has been told of, to tell a created file from a changed one. */
    private readonly known: Set<string>,
  ) {}

  static async start(options: CodeIntelligenceOptions): Promise<CodeIntelligence> {
    // The server reports real paths; the repository's must compare with them.
    const root = await realpath(options.root);
    const repo = new Repository(root, new PythonIndex(options.python ?? "python3"));
    const onWarning = options.onWarning ?? ((): void => undefined);
    const known = new Set(await repo.pythonFiles());
    const answers =
      options.server === false
        ? ServerOrParser.parserOnly(onWarning)
        : await ServerOrParser.start(root, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, onWarning);
    return new CodeIntelligence(repo, answers, known);
  }

  /** Which implementation answers now. */
  get backend(): Backend {
    return this.answers.backend;
  }

  /** The language server's process id, while there is one. */
  get serverPid(): number | undefined {
    return this.answers.pid;
  }

  /** Every definition of a name (`name`, `Class.method`): all of them when several files define it. */
  async findSymbol(query: SymbolQuery): Promise<Answer<SymbolMatch[]>> {
    const q = normalQuery(query);
    const warnings: string[] = [];
    const answer = await this.answers.serve(
      (server) => findWithServer(server, this.repo, q),
      () => findWithParser(this.repo, q),
      warnings,
    );
    if (answer.via === "pyright" && answer.value.length === 0) {
      // An index behind the disk misses what is there: the parser has the last word on "not found".
      const parsed = await findWithParser(this.repo, q);
      if (parsed.length > 0) {
        this.answers.warn(warnings, `pyright-langserver's index has no ${q.qualname}; the parser found it`);
        return { value: parsed, via: "ast", warnings };
      }
    }
    return { ...answer, warnings };
  }

  /** Where the symbol is named (its definition aside), each with the definition it is written in. */
  async findReferencingSymbols(target: SymbolTarget): Promise<Answer<{ targets: SymbolMatch[]; references: Reference[] }>> {
    const warnings: string[] = [];
    const { value: targets, via: foundVia } = await this.resolve(target, warnings);
    if (targets.length === 0) return { value: { targets, references: [] }, via: foundVia, warnings };
    const { value: sites, via } = await this.sitesOf(targets, warnings);
    const all = [...sites.values()].flat();
    return { value: { targets, references: await describeSites(this.repo, all) }, via, warnings };
  }

  /** Replaces the statements of a symbol's body (after its docstring); everything else stays byte for byte. */
  replaceSymbolBody(target: SymbolTarget, body: string): Promise<EditOutcome> {
    return this.edit(target, (text, m) => this.repo.index.replaceBody(text, m.qualname, m.line, body));
  }

  /** Puts code after a symbol, at its indentation (a method after a method, in its class). */
  insertAfterSymbol(target: SymbolTarget, code: string): Promise<EditOutcome> {
    return this.edit(target, (text, m) => this.repo.index.insert(text, m.qualname, m.line, code, "after"));
  }

  /** Puts code before a symbol (above its decorators and the comments on top of it), at its indentation. */
  insertBeforeSymbol(target: SymbolTarget, code: string): Promise<EditOutcome> {
    return this.edit(target, (text, m) => this.repo.index.insert(text, m.qualname, m.line, code, "before"));
  }

  /** Renames a symbol everywhere it is named, imports included, unless the new name would clash in some scope. */
  async renameSymbol(target: SymbolTarget, newName: string): Promise<EditOutcome> {
    const warnings: string[] = [];
    const located = await this.locateOne(target, warnings);
    if ("ok" in located) return located;
    const { match } = located;
    if (newName === match.name)
      return refusal(located.via, "LSP_RENAME_INVALID_NAME", `${match.qualname} is already called ${newName}`, [], warnings);
    const { value: plan, via } = await this.answers.serve(
      (server) => planRenameWithServer(server, this.repo, match, newName),
      () => planRenameWithParser(this.repo, match, newName),
      warnings,
    );
    if (plan.inexact)
      this.answers.warn(
        warnings,
        `${match.qualname} is a class member: the parser renamed every .${match.name} in the files that reach its class`,
      );
    const files = await Promise.all([...plan.texts.keys()].map((rel) => this.repo.pythonFile(rel)));
    const check = await this.repo.index.renameCheck(
      files.map((f) => ({ ...f, new_text: plan.texts.get(f.path)!.after })),
      plan.sites.map((s) => ({ path: s.file, line: s.line, column: s.column })),
      newName,
    );
    if (!check.ok) {
      const problems = [...check.conflicts, ...check.errors];
      const message = problems.map((p) => (p.path ? `${p.path}:${p.line}: ${p.message}` : p.message)).join("; ");
      const at = problems.filter((p) => p.path).map((p) => ({ file: p.path, line: p.line || null }));
      return refusal(
        via,
        check.code ?? "LSP_RENAME_COLLISION",
        `renaming ${match.qualname} to ${newName} is refused: ${message}`,
        at,
        warnings,
      );
    }
    const changed = new Map([...plan.texts].filter(([, t]) => t.after !== t.before).map(([rel, t]) => [rel, t.after]));
    await this.repo.write(changed);
    await this.filesChanged([...changed.keys()], warnings);
    return { ok: true, via, files: [...changed.keys()].sort(), warnings };
  }

  /**
   * Tells the language server that files changed on disk (call it after each write batch of the run's own); the
   * edits here announce theirs. Created, changed or deleted is read from the disk.
   */
  async filesChanged(paths: readonly string[], warnings: string[] = []): Promise<void> {
    const changes: FileEvent[] = [];
    let relisted = false;
    for (const rel of [...new Set(paths)].filter(isListed).sort()) {
      const exists = await this.repo.exists(rel);
      const type = !exists ? FileChangeType.Deleted : this.known.has(rel) ? FileChangeType.Changed : FileChangeType.Created;
      if (!exists && !this.known.has(rel)) continue; // gone, and never announced
      relisted ||= type !== FileChangeType.Changed;
      if (exists) this.known.add(rel);
      else this.known.delete(rel);
      changes.push({ uri: this.repo.uri(rel), type });
    }
    if (changes.length > 0) await this.answers.tell((server) => server.filesChanged(changes, relisted), warnings);
  }

  /** The RPG's planned dependencies between leaves against the references in the code (the PRD's 80% target). */
  async checkDependencies(rpg: Pick<Rpg, "nodes" | "edges">): Promise<Answer<DependencyCheck>> {
    const warnings: string[] = [];
    const located = new Map<string, SymbolMatch>();
    for (const node of rpg.nodes) {
      if (node.node_type !== "leaf") continue;
      const { file, qualname } = expectedSymbol(rpg, node);
      if (!(await this.repo.exists(file))) continue;
      const [match] = await matchesIn(this.repo, [file], { qualname, file });
      if (match) located.set(node.id, match);
    }
    const { value: sites, via } = await this.sitesOf([...located.values()], warnings);
    const referencesTo = new Map<string, Reference[]>();
    for (const [id, match] of located) referencesTo.set(id, await describeSites(this.repo, sites.get(keyOf(match)) ?? []));
    return { value: compareDependencies(rpg, located, referencesTo, via), via, warnings };
  }

  /** Stops the language server (shutdown, exit, killed if it does not end). */
  close(): Promise<void> {
    return this.answers.stop();
  }

  private async sitesOf(targets: readonly SymbolMatch[], warnings: string[]): Promise<Answer<Map<string, Site[]>>> {
    const answer = await this.answers.serve(
      (server) => sitesWithServer(server, this.repo, targets),
      async () => {
        const { sites, inexact } = await sitesWithParser(this.repo, targets);
        for (const qualname of inexact)
          this.answers.warn(
            warnings,
            `${qualname} is a class member: the parser lists every .${qualname.split(".").at(-1)} that could be it`,
          );
        return sites;
      },
      warnings,
    );
    return { ...answer, warnings };
  }

  private async resolve(target: SymbolTarget, warnings: string[]): Promise<Answer<SymbolMatch[]>> {
    if (typeof target !== "string" && "file" in target && !("name" in target)) {
      // A definition's place: the symbol defined on that line (the column tells two on one line apart).
      const [outline] = [...(await this.repo.outline([target.file])).values()];
      const entries = outline?.outline.ok ? outline.outline.symbols.filter((s) => s.line === target.line) : [];
      const picked = entries.filter((s) => target.column === undefined || s.column + 1 === target.column);
      const matches = await Promise.all(
        picked.map((s) => matchesIn(this.repo, [target.file], { qualname: s.qualname, file: target.file, line: s.line })),
      );
      return { value: matches.flat(), via: this.backend, warnings };
    }
    const found = await this.findSymbol(target);
    warnings.push(...found.warnings);
    return { ...found, warnings };
  }

  private async locateOne(
    target: SymbolTarget,
    warnings: string[],
  ): Promise<{ match: SymbolMatch; via: Backend } | Extract<EditOutcome, { ok: false }>> {
    const { value: matches, via } = await this.resolve(target, warnings);
    const name = typeof target === "string" ? target : "name" in target ? target.name : `the symbol on ${target.file}:${target.line}`;
    if (matches.length === 0) return refusal(via, "LSP_SYMBOL_NOT_FOUND", `no definition of ${name} in the repository`, [], warnings);
    if (matches.length > 1) {
      const where = matches.map((m) => `${m.file}:${m.line}`).join(", ");
      return refusal(
        via,
        "LSP_SYMBOL_AMBIGUOUS",
        `${name} is defined ${matches.length} times (${where}); name the file`,
        matches.map((m) => ({ file: m.file, line: m.line })),
        warnings,
      );
    }
    return { match: matches[0]!, via };
  }

  private async edit(target: SymbolTarget, make: (text: string, match: SymbolMatch) => Promise<TextEdit>): Promise<EditOutcome> {
    const warnings: string[] = [];
    const located = await this.locateOne(target, warnings);
    if ("ok" in located) return located;
    const { match, via } = located;
    const result = await make(await this.repo.read(match.file), match);
    if (!result.ok)
      return refusal(
        via,
        result.code,
        `${match.qualname} in ${match.file}: ${result.message}`,
        [{ file: match.file, line: result.line }],
        warnings,
      );
    await this.repo.write(new Map([[match.file, result.text]]));
    await this.filesChanged([match.file], warnings);
    return { ok: true, via, files: [match.file], lines: result.lines, warnings };
  }
}

function refusal(
  via: Backend,
  code: EditRefusalCode,
  message: string,
  at: { file: string; line: number | null }[],
  warnings: string[],
): Extract<EditOutcome, { ok: false }> {
  return { ok: false, via, code, message, at, warnings };
}
