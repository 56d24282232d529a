import { randomBytes } from "node:crypto";
import { mkdir, open, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Writes a file so that readers see the old content or the new, never a part: the
 * bytes go to a temporary file beside the target, are flushed to disk, and the temp
 * file is renamed over the target (atomic on POSIX within one file system). The
 * directory is synced too, so the rename itself survives a power cut.
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const handle = await open(temp, "wx", 0o644);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
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
