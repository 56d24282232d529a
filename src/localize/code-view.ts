import { readFile, stat } from "node:fs/promises";
import type { NodeStatus, Rpg, RpgNode } from "../rpg/schema.js";
import { symbolKindOf } from "../rpg/symbol-kind.js";
import { RpgForgeError } from "../errors.js";
import type { NodeStatuses } from "./dependencies.js";
import { repoPath } from "./repo-path.js";
import { outlineSignatures, type SignatureOutline, type SignatureStatement } from "./signatures.js";

/** A file (and optionally one of its symbols: `name` or `Class.method`), or a node of the RPG. */
export type CodeTarget = { file: string; symbol?: string } | { nodeId: string };

interface Subject {
  /** POSIX, relative to the repository. */
  file: string;
  nodeId?: string;
  symbol?: string;
  status?: NodeStatus;
}

export type CodeView =
  | (Subject & {
      kind: "source";
      /** 1-based, inclusive; decorators included. */
      startLine: number;
      endLine: number;
      totalLines: number;
      text: string;
      /** Why the whole file is shown though a symbol was asked for (it does not parse). */
      note?: string;
    })
  | (Subject & {
      kind: "outline";
      totalLines: number;
      /** The module docstring's first line. */
      doc: string | null;
      statements: SignatureStatement[];
      /** Where the file fails to parse; the statements are then empty. */
      parseError?: { line: number; column: number; message: string };
    })
  | (Subject & {
      kind: "missing";
      /** What is not there: the file, or the symbol in it. */
      absent: "file" | "symbol";
      /** A node whose file or symbol does not exist yet: its code is not generated (or was restored after a failure). */
      notGenerated: boolean;
      message: string;
    });

export interface CodeViewerOptions {
  /** The interpreter that parses (python3 on PATH will do; it only parses). */
  python: string;
  /** Needed to view a node by id. */
  rpg?: Pick<Rpg, "nodes">;
}

interface Cached {
  mtimeMs: number;
  size: number;
  text: string;
  lines: string[];
  outline?: Promise<SignatureOutline>;
}

/**
 * Reads a repository's Python for the debugger: a file or a symbol as source, or a file as an outline of
 * its interfaces. Files are cached by modification time and size, so a debug loop that looks at the
 * same module ten times reads and parses it once, and sees an edit at once.
 */
export class CodeViewer {
  private readonly cache = new Map<string, Cached>();
  private readonly nodes: Map<string, RpgNode>;

  constructor(
    private readonly repoDir: string,
    private readonly options: CodeViewerOptions,
  ) {
    this.nodes = new Map((options.rpg?.nodes ?? []).map((n) => [n.id, n]));
  }

  /**
   * The target as source, or as an outline with `outline`. A node's view is its symbol's lines (the outline of
   * its file with `outline`); a node without code yet is `missing` with notGenerated, never an error. Throws
   * LOCALIZE_UNKNOWN_NODE for an id the RPG lacks and LOCALIZE_PATH_REFUSED for a path outside the package.
   */
  async view(target: CodeTarget, options: { outline?: boolean; statuses?: NodeStatuses } = {}): Promise<CodeView> {
    const named = this.subjectOf(target, options.statuses);
    const { rel, abs } = await repoPath(this.repoDir, named.file);
    const subject = { ...named, file: rel };
    const file = await this.read(abs);
    const status = subject.status ? ` (status: ${subject.status})` : "";
    const missing = (absent: "file" | "symbol"): CodeView => ({
      ...subject,
      kind: "missing",
      absent,
      notGenerated: subject.nodeId !== undefined,
      message: `${subject.nodeId ? "not yet generated: " : ""}${subject.file} ${absent === "file" ? "does not exist" : `defines no ${subject.symbol}`}${status}`,
    });
    if (!file) return missing("file");

    const outline = await (file.outline ??= outlineSignatures(this.options.python, file.text));
    if (options.outline) {
      if (!outline.ok)
        return { ...subject, kind: "outline", totalLines: file.lines.length, doc: null, statements: [], parseError: errorOf(outline) };
      if (subject.symbol !== undefined && !locate(outline.statements, subject.symbol)) return missing("symbol");
      return { ...subject, kind: "outline", totalLines: file.lines.length, doc: outline.doc, statements: outline.statements };
    }
    const whole = (note?: string): CodeView => ({
      ...subject,
      kind: "source",
      startLine: 1,
      endLine: file.lines.length,
      totalLines: file.lines.length,
      text: file.lines.join("\n"),
      ...(note ? { note } : {}),
    });
    if (subject.symbol === undefined) return whole();
    if (!outline.ok) return whole(`${subject.file} does not parse (line ${outline.line}: ${outline.message}), so the whole file is shown`);
    const span = locate(outline.statements, subject.symbol);
    if (!span) return missing("symbol");
    return {
      ...subject,
      kind: "source",
      startLine: span.start,
      endLine: span.end,
      totalLines: file.lines.length,
      text: file.lines.slice(span.start - 1, span.end).join("\n"),
    };
  }

  private subjectOf(target: CodeTarget, statuses: NodeStatuses | undefined): Subject {
    if ("file" in target) return { file: target.file, ...(target.symbol !== undefined ? { symbol: target.symbol } : {}) };
    const node = this.nodes.get(target.nodeId);
    if (!node)
      throw new RpgForgeError(
        "LOCALIZE_UNKNOWN_NODE",
        `no node "${target.nodeId}" in the RPG`,
        { nodeId: target.nodeId },
        "node ids are case-sensitive; `rpg-forge plan <rpg>` lists them",
      );
    const status = statuses?.get(node.id) ?? node.status;
    return { file: node.file_path, nodeId: node.id, symbol: this.symbolOf(node), ...(status ? { status } : {}) };
  }

  /** `name`, or `Class.method` for a method node: how the outline names it. */
  private symbolOf(node: RpgNode): string {
    const parent = node.parent_id === undefined ? undefined : this.nodes.get(node.parent_id);
    return symbolKindOf(node) === "method" && parent ? `${parent.name}.${node.name}` : node.name;
  }

  private async read(abs: string): Promise<Cached | undefined> {
    const info = await stat(abs).catch(() => undefined);
    if (!info?.isFile()) {
      this.cache.delete(abs);
      return undefined;
    }
    const known = this.cache.get(abs);
    if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) return known;
    // A BOM is not part of the code; ast would reject it inside a str.
    const text = (await readFile(abs, "utf8")).replace(/^\uFEFF/, "");
    // Python's line breaks: what the outline's line numbers count.
    const lines = text.split(/\r\n|\r|\n/);
    if (lines.length > 1 && lines.at(-1) === "") lines.pop();
    const fresh: Cached = { mtimeMs: info.mtimeMs, size: info.size, text, lines };
    this.cache.set(abs, fresh);
    return fresh;
  }
}

/** The lines of `name` or `Class.method` among the top-level statements (an assignment by any name it binds). */
function locate(statements: readonly SignatureStatement[], symbol: string): { start: number; end: number } | undefined {
  const dot = symbol.indexOf(".");
  const [owner, member] = dot < 0 ? [undefined, symbol] : [symbol.slice(0, dot), symbol.slice(dot + 1)];
  const statement = statements.find(
    (st) =>
      (st.kind !== "import" && st.kind !== "future" && st.name === (owner ?? member)) ||
      (owner === undefined && st.names?.includes(member)),
  );
  if (!statement) return undefined;
  return owner ? statement.members?.find((m) => m.name === member) : statement;
}

function errorOf(outline: Extract<SignatureOutline, { ok: false }>): { line: number; column: number; message: string } {
  return { line: outline.line, column: outline.column, message: outline.message };
}
