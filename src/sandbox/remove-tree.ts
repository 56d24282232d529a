import { execFile } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { chmod, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

// A tree of at most this many entries is removed synchronously: what a test run usually leaves (its private folder
// with HOME, TMPDIR and the JUnit report) goes in microseconds instead of a trip through the thread pool per entry.
// A larger one, which a test can make as large as it likes, is removed asynchronously so as not to hold the engine.
const SMALL_TREE_ENTRIES = 32;

/**
 * Removes a directory the tests could write to. Generated code may leave directories
 * without write or search permission (chmod 000), which a non-root rm cannot enter, so
 * on failure we give ourselves permissions back and try once more. What still cannot be
 * removed stays: a leftover temp directory must not turn a test result into a crash.
 */
export async function removeTree(dir: string): Promise<void> {
  if (isSmallTree(dir, SMALL_TREE_ENTRIES)) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch {
      // A folder without permissions: the way below gives them back.
    }
  }
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await restorePermissions(dir);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  // Node removes by path, and a tree deeper than PATH_MAX (a test can make one in a loop) fails with ENAMETOOLONG:
  // rm(1) walks it from directory handles.
  if (existsSync(dir)) await run("rm", ["-rf", "--one-file-system", "--", dir]).catch(() => undefined);
}

async function restorePermissions(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await restorePermissions(join(dir, entry.name));
  }
}

/** Whether `dir` holds at most `limit` entries in all, every folder readable; false as soon as it is not. */
function isSmallTree(dir: string, limit: number): boolean {
  let budget = limit;
  const fits = (folder: string): boolean => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return false;
    }
    budget -= entries.length;
    if (budget < 0) return false;
    return entries.every((entry) => !entry.isDirectory() || fits(join(folder, entry.name)));
  };
  return fits(dir);
}
