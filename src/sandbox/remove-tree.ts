import { chmod, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * Removes a directory the tests could write to. Generated code may leave directories
 * without write or search permission (chmod 000), which a non-root rm cannot enter, so
 * on failure we give ourselves permissions back and try once more. What still cannot be
 * removed stays: a leftover temp directory must not turn a test result into a crash.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await restorePermissions(dir);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function restorePermissions(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await restorePermissions(join(dir, entry.name));
  }
}
