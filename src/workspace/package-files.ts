import { lstat, readFile, realpath, unlink } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { RpgForgeError } from "../errors.js";
import { stageFileAtomic, writeFileAtomic, type StagedWrite } from "./atomic-write.js";

/** Folders nothing generated may touch, wherever the package lives. */
const PROTECTED = [".git", ".github"];

/**
 * The files of the generated package, and only those. Every path is checked before
 * it is read or written: relative, no `..`, not into .git/ or .github/, and not
 * through a symbolic link, since generated code could plant a link that points out.
 */
export class PackageFiles {
  private constructor(readonly root: string) {}

  static async open(root: string): Promise<PackageFiles> {
    return new PackageFiles(await realpath(root));
  }

  /** The absolute path of `rel`, or WORKSPACE_PATH_REFUSED. */
  async resolve(rel: string): Promise<string> {
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
      const info = await lstat(current).catch(() => undefined);
      if (!info) break;
      if (info.isSymbolicLink()) refuse(`${relative(this.root, current)} is a symbolic link`);
    }
    return absolute;
  }

  async read(rel: string): Promise<string | undefined> {
    const path = await this.resolve(rel);
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async write(rel: string, content: string): Promise<void> {
    await writeFileAtomic(await this.resolve(rel), content);
  }

  /** The first half of an atomic write: the bytes beside the target, put in place by `commit()`. */
  async stage(rel: string, content: string): Promise<StagedWrite> {
    return stageFileAtomic(await this.resolve(rel), content);
  }

  async remove(rel: string): Promise<void> {
    await unlink(await this.resolve(rel)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }

  /** Records the files a node may touch, so that a failed node can be undone to the byte. */
  async snapshot(rels: readonly string[]): Promise<FileSnapshot> {
    const saved = new Map<string, string | undefined>();
    for (const rel of new Set(rels)) saved.set(rel, await this.read(rel));
    return new FileSnapshot(this, saved);
  }
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
