import { lstat, readdir, readFile } from "node:fs/promises";
import { isAbsolute, join, posix, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { moduleOf } from "../assembly/layout.js";
import { stageFileAtomic, type StagedWrite } from "../workspace/atomic-write.js";
import { refuseLinks } from "../workspace/no-links.js";
import type { FileOutline, PythonFile, PythonIndex } from "./python-index.js";

/** Folders neither pyright (its default excludes) nor the parser reads: hidden ones (.git, .rpg-forge), caches, venvs. */
const SKIPPED = new Set(["__pycache__", "node_modules"]);

/** Whether a Python file is one the server and the parser read: in no hidden folder, cache or node_modules. */
export function isListed(rel: string): boolean {
  const parts = rel.split("/");
  return rel.endsWith(".py") && parts.slice(0, -1).every((p) => !p.startsWith(".") && !SKIPPED.has(p));
}

/**
 * The generated repository as code intelligence sees it: its Python files (relative POSIX paths), read and written
 * without ever going through a link, and each file's outline, cached on its text.
 */
export class Repository {
  private readonly outlines = new Map<string, { text: string; outline: FileOutline }>();

  constructor(
    readonly root: string,
    readonly index: PythonIndex,
  ) {}

  /** Every .py file under the root, sorted; links and the folders pyright skips are left out. */
  async pythonFiles(): Promise<string[]> {
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(join(this.root, dir), { withFileTypes: true }).catch(() => []);
      if (entries.some((e) => e.name === "pyvenv.cfg")) return;
      for (const entry of entries) {
        const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory() && !entry.name.startsWith(".") && !SKIPPED.has(entry.name)) await walk(rel);
        else if (entry.isFile() && entry.name.endsWith(".py")) found.push(rel);
      }
    };
    await walk("");
    return found.sort();
  }

  async exists(rel: string): Promise<boolean> {
    return (await lstat(join(this.root, rel)).catch(() => undefined))?.isFile() ?? false;
  }

  /** A file's text; OUTPUT_SYMLINK when a link is on its way. */
  async read(rel: string): Promise<string> {
    await refuseLinks(this.root, rel);
    return readFile(join(this.root, rel), "utf8");
  }

  /** A file as the parser's references need it: with its module name. */
  async pythonFile(rel: string): Promise<PythonFile> {
    return { path: rel, module: moduleOf(rel), package: posix.basename(rel) === "__init__.py", text: await this.read(rel) };
  }

  /** The outlines of `rels` as they are on disk now, in one round trip for the files not seen with this text. */
  async outline(rels: readonly string[]): Promise<Map<string, { text: string; outline: FileOutline }>> {
    const texts = await Promise.all(rels.map(async (rel) => [rel, await this.read(rel)] as const));
    const stale = texts.filter(([rel, text]) => this.outlines.get(rel)?.text !== text);
    if (stale.length > 0) {
      const fresh = await this.index.outline(stale.map(([path, text]) => ({ path, text })));
      for (const [rel, text] of stale) this.outlines.set(rel, { text, outline: fresh[rel]! });
    }
    return new Map(texts.map(([rel]) => [rel, this.outlines.get(rel)!]));
  }

  /**
   * Writes files whole: every new text is staged beside its file first, then all are renamed into place, so that
   * a file is never half written and a failure while staging writes none. A link on the way is refused.
   */
  async write(files: ReadonlyMap<string, string>): Promise<void> {
    const staged: StagedWrite[] = [];
    try {
      for (const [rel, text] of files) {
        await refuseLinks(this.root, rel);
        staged.push(await stageFileAtomic(join(this.root, rel), text));
      }
    } catch (error) {
      await Promise.all(staged.map((s) => s.discard()));
      throw error;
    }
    for (const s of staged) await s.commit();
  }

  uri(rel: string): string {
    return pathToFileURL(join(this.root, rel)).href;
  }

  /** The repository path of a file: URI, or undefined for one outside the root. */
  relOf(uri: string): string | undefined {
    let path: string;
    try {
      path = fileURLToPath(uri);
    } catch {
      return undefined;
    }
    const rel = relative(this.root, path);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
    return rel.split(sep).join("/");
  }
}
