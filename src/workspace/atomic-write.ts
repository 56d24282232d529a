import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, open, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Writes a file so that readers see the old content or the new, never a part: the
 * bytes go to a temporary file beside the target, are flushed to disk, and the temp
 * file is renamed over the target (atomic on POSIX within one file system). The
 * directory is synced too, so the rename itself survives a power cut.
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const staged = await stageFileAtomic(path, content);
  await staged.commit();
}

/**
 * Replaces a file as writeFileAtomic does, readers seeing the old content or the new, but without waiting for
 * the disk: for a file that is made again from durable ones after a crash (the work tree, which every run copies
 * afresh from the output). Two syncs per write were most of its cost, and a node writes its files a dozen
 * times. The calls are synchronous, a few microseconds each for a module's bytes.
 */
export function replaceFileUnsynced(path: string, content: string | Uint8Array): void {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temp, content, { flag: "wx", mode: 0o644 });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** A file whose new content is on disk beside its target, not yet in its place. */
export interface StagedWrite {
  readonly path: string;
  /** Renames the new content over the target. */
  commit(): Promise<void>;
  /** Drops the new content; the target is as it was. */
  discard(): Promise<void>;
}

/**
 * The first half of an atomic write: everything that can run out of room or fail
 * (creating folders, writing and syncing the bytes) happens here, so that a batch of
 * files can be prepared whole and then put in place with renames only.
 */
export async function stageFileAtomic(path: string, content: string | Uint8Array): Promise<StagedWrite> {
  const dir = dirname(path);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const discard = (): Promise<void> => unlink(temp).catch(() => undefined);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, "wx", 0o644);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    path,
    discard,
    async commit() {
      try {
        await rename(temp, path);
      } catch (error) {
        await discard();
        throw error;
      }
      await syncDirectory(dir);
    },
  };
}

async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename has happened either way.
  } finally {
    await handle?.close();
  }
}
