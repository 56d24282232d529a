import { lstatSync, readdirSync, readFileSync, rmSync, unlinkSync, type BigIntStats } from "node:fs";
import { realpath } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { RpgForgeError } from "../errors.js";
import { replaceFileUnsynced, stageFileAtomic, writeFileAtomic, type StagedWrite } from "./atomic-write.js";

/** Folders nothing generated may touch, wherever the package lives. */
const PROTECTED = [".git", ".github"];

/**
 * How recent a file's change may be for its bytes to be compared even when its stat says it is unchanged. The
 * kernel stamps ctime from a coarse clock (a tick of a few ms), so a change in the same tick as the engine's own
 * write would leave the stat as the engine saw it; files the engine wrote this recently are read (git's "racily
 * clean" entries, for the same reason).
 */
const RACY_WINDOW_NS = 2_000_000_000n;

/** What a file's stat must still say for it to be unchanged: the same inode, size and change time. */
interface Stamp {
  ino: bigint;
  size: bigint;
  ctimeNs: bigint;
}

/** What a tracked tree held that the engine did not write, found by `verify()` and already undone. */
export interface Tampering {
  changed: string[];
  added: string[];
  removed: string[];
}

/**
 * The files of the generated package, and only those. Every path is checked before
 * it is read or written: relative, no `..`, not into .git/ or .github/, and not
 * through a symbolic link, since generated code could plant a link that points out.
 *
 * A tracked tree (the work tree generated code runs in) also keeps the bytes of every
 * file it holds, as copied in or written by the engine: reads answer from those bytes,
 * so what the engine ships is byte for byte what it wrote and tested, and `verify()`
 * finds and undoes whatever else changed the tree.
 */
export class PackageFiles {
  // The file system calls below are synchronous: each takes microseconds for a package's files, where a trip through
  // libuv's thread pool took a good part of a millisecond, and a node reads, writes and checks its tree dozens of times
  // (a resolve alone is one lstat per folder on the way). Issue 16: the engine's own time per node.
  private readonly ledger: Map<string, Buffer> | undefined;
  /** Each ledger file's stat as the engine left it: verify() reads only the files whose stat moved, or that are racy. */
  private readonly stamps = new Map<string, Stamp>();
  /** Writes and verify() take turns: a write half done is not tampering. */
  private turn: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly root: string,
    tracked: boolean,
    private readonly untracked: ReadonlySet<string> = new Set(),
    private readonly racyWindowNs: bigint = RACY_WINDOW_NS,
  ) {
    this.ledger = tracked ? new Map() : undefined;
  }

  static async open(root: string): Promise<PackageFiles> {
    return new PackageFiles(await realpath(root), false);
  }

  /**
   * A tracked tree: every file under root is taken as it is now, except `untracked` (names at the root that are not
   * the package's). `racyWindowNs` is for tests of the stat check; leave it.
   */
  static async openTracked(root: string, untracked: readonly string[] = [], racyWindowNs = RACY_WINDOW_NS): Promise<PackageFiles> {
    const files = new PackageFiles(await realpath(root), true, new Set(untracked), racyWindowNs);
    const { entries } = files.scan();
    for (const [rel, kind] of entries) {
      if (kind !== "file") continue;
      files.ledger!.set(rel, readFileSync(join(files.root, rel)));
      files.restamp(rel);
    }
    return files;
  }

  /** The absolute path of `rel`, or WORKSPACE_PATH_REFUSED. */
  async resolve(rel: string): Promise<string> {
    return this.resolved(rel);
  }

  private resolved(rel: string): string {
    const refuse = (why: string): never => {
      throw new RpgForgeError("WORKSPACE_PATH_REFUSED", `refused to touch ${JSON.stringify(rel)}: ${why}`, { file: rel });
    };
    if (isAbsolute(rel) || rel.includes("\\")) refuse("not a relative POSIX path");
    const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.length === 0 || parts.includes("..")) refuse("it leaves the package");
    if (PROTECTED.includes(parts[0]!.toLowerCase())) refuse(`${parts[0]}/ is never written by generated code`);
    const absolute = join(this.root, ...parts);
    if (relative(this.root, absolute).startsWith(`..${sep}`)) refuse("it leaves the package");
    let current = this.root;
    for (const part of parts) {
      current = join(current, part);
      const info = lstatSync(current, { throwIfNoEntry: false });
      if (!info) break;
      if (info.isSymbolicLink()) refuse(`${relative(this.root, current)} is a symbolic link`);
    }
    return absolute;
  }

  async read(rel: string): Promise<string | undefined> {
    const path = this.resolved(rel);
    if (this.ledger) return this.ledger.get(parts(rel).join("/"))?.toString("utf8");
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async write(rel: string, content: string): Promise<void> {
    const path = this.resolved(rel);
    await this.exclusive(async () => {
      if (!this.ledger) return writeFileAtomic(path, content);
      const key = parts(rel).join("/");
      const bytes = Buffer.from(content, "utf8");
      // Bytes the file holds already, as the engine left it: a gate's test file with only the node's block, when that
      // block is all the file holds, and the file put back after the run. A stat instead of four calls.
      if (this.ledger.get(key)?.equals(bytes) && this.unchanged(key, bytes)) return;
      // A tracked tree is the work tree, copied afresh from the output by every run: nothing in it needs to outlive a crash.
      replaceFileUnsynced(path, bytes);
      this.ledger.set(key, bytes);
      this.restamp(key);
    });
  }

  /** The first half of an atomic write: the bytes beside the target, put in place by `commit()`. */
  async stage(rel: string, content: string): Promise<StagedWrite> {
    return stageFileAtomic(this.resolved(rel), content);
  }

  async remove(rel: string): Promise<void> {
    const path = this.resolved(rel);
    await this.exclusive(async () => {
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
      this.ledger?.delete(parts(rel).join("/"));
      this.stamps.delete(parts(rel).join("/"));
    });
  }

  /**
   * Compares a tracked tree with the bytes the engine knows, and puts it back: changed
   * and removed files get their bytes again, anything added (files, links, folders
   * holding no file of ours, `__pycache__`) is deleted. Undefined when nothing differed.
   */
  async verify(): Promise<Tampering | undefined> {
    const ledger = this.ledger;
    if (!ledger) throw new Error("verify() needs a tracked tree (PackageFiles.openTracked)");
    return this.exclusive(async () => {
      const { entries, folders } = this.scan();
      const found: Tampering = { changed: [], added: [], removed: [] };
      const now = wallClockNs();
      for (const [rel, kind] of entries) {
        const known = ledger.get(rel);
        if (kind !== "file" || known === undefined) found.added.push(rel);
        else if (!this.unchanged(rel, known, now)) found.changed.push(rel);
      }
      for (const rel of ledger.keys()) if (!entries.has(rel)) found.removed.push(rel);
      // Every folder on the way to a file of ours; the others hold nothing the engine wrote.
      const held = new Set(
        [...ledger.keys()].flatMap((rel) =>
          rel
            .split("/")
            .slice(0, -1)
            .map((_, i, parts) => parts.slice(0, i + 1).join("/")),
        ),
      );
      const strayFolders = folders.filter((dir) => !held.has(dir));
      if (found.changed.length + found.added.length + found.removed.length === 0 && strayFolders.length === 0) return undefined;
      for (const rel of found.added) rmSync(join(this.root, rel), { recursive: true, force: true });
      for (const dir of strayFolders) rmSync(join(this.root, dir), { recursive: true, force: true });
      for (const rel of [...found.changed, ...found.removed]) {
        rmSync(join(this.root, rel), { recursive: true, force: true });
        replaceFileUnsynced(join(this.root, rel), ledger.get(rel)!);
        this.restamp(rel);
      }
      return found.changed.length + found.added.length + found.removed.length === 0 ? undefined : found;
    });
  }

  /**
   * Whether a ledger file still holds the engine's bytes. Its stat decides when it is as the engine left it and that
   * was long enough ago: any write since changed its ctime, which no one but the kernel sets (utimes sets mtime and
   * atime, and moves ctime too). Otherwise its bytes are read and compared, and a match is stamped anew.
   */
  private unchanged(rel: string, known: Buffer, now = wallClockNs()): boolean {
    const path = join(this.root, rel);
    const stamp = this.stamps.get(rel);
    const info = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    if (!info?.isFile()) return false;
    if (stamp && sameStamp(stamp, info) && now - stamp.ctimeNs > this.racyWindowNs) return true;
    if (!known.equals(readFileSync(path))) return false;
    this.stamps.set(rel, stampOf(info));
    return true;
  }

  private restamp(rel: string): void {
    this.stamps.set(rel, stampOf(lstatSync(join(this.root, rel), { bigint: true })));
  }

  /** Every entry under root (files, links, anything that is not a folder) by kind, and the folders, never following a link. */
  private scan(): { entries: Map<string, "file" | "other">; folders: string[] } {
    const entries = new Map<string, "file" | "other">();
    const folders: string[] = [];
    const walk = (dir: string, prefix: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
        if (prefix === "" && this.untracked.has(entry.name)) continue;
        if (entry.isDirectory()) {
          folders.push(rel);
          walk(join(dir, entry.name), rel);
        } else entries.set(rel, entry.isFile() ? "file" : "other");
      }
    };
    walk(this.root, "");
    return { entries, folders };
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.turn.then(work, work);
    this.turn = next.catch(() => undefined);
    return next;
  }

  /** Records the files a node may touch, so that a failed node can be undone to the byte. */
  async snapshot(rels: readonly string[]): Promise<FileSnapshot> {
    const saved = new Map<string, string | undefined>();
    for (const rel of new Set(rels)) saved.set(rel, await this.read(rel));
    return new FileSnapshot(this, saved);
  }
}

function stampOf(info: BigIntStats): Stamp {
  return { ino: info.ino, size: info.size, ctimeNs: info.ctimeNs };
}

function sameStamp(stamp: Stamp, info: BigIntStats): boolean {
  return stamp.ino === info.ino && stamp.size === info.size && stamp.ctimeNs === info.ctimeNs;
}

function parts(rel: string): string[] {
  return rel.split("/").filter((p) => p !== "" && p !== ".");
}

export class FileSnapshot {
  constructor(
    private readonly files: PackageFiles,
    private readonly saved: ReadonlyMap<string, string | undefined>,
  ) {}

  /** Puts every recorded file back as it was; files that did not exist are removed. */
  async restore(): Promise<void> {
    for (const [rel, content] of this.saved) {
      if (content === undefined) await this.files.remove(rel);
      else await this.files.write(rel, content);
    }
  }
}

/** The wall clock in nanoseconds, which the kernel's ctime follows too. */
function wallClockNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}
