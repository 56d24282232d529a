// Where `npm test` keeps the run's temporary files (scripts/run-tests.mjs), decision 0019.
//
// A run makes and removes files by the thousand: git repositories and clones, packages, pytest's reports, the
// engine's artifacts. On an ext4 disk without a journal (/tmp on the machine CI runs on), the kernel looks at every
// inode removed in the last minutes each time it makes a file: 1,800 folders and 4,500 files took 1.4 to 3.3 s of
// system CPU there, 0.1 s on a tmpfs, and the whole suite 343 s and 675 CPU-s against 307 s and 612 (decision 0019).
// So the run's folder goes on the machine's RAM disk when it has one that fits it and runs programs; an explicit
// TMPDIR is the user's choice and stays theirs.
import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** The RAM disk every Linux mounts (glibc's POSIX shared memory). */
const RAM_DISK = "/dev/shm";
/** statfs's f_type of tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** A run's folder peaks near 30 MB; a container's 64 MB /dev/shm is too tight to share with what else uses it. */
const MIN_FREE_BYTES = 512 * 1024 * 1024;

/** The folder to make the run's temporary folder in. */
export function scratchParent(env = process.env) {
  if (env.TMPDIR) return env.TMPDIR;
  return ramDiskUsable(RAM_DISK) ? RAM_DISK : tmpdir();
}

/** A tmpfs with room, writable, and not mounted noexec: tests run scripts they write (a fake python3 on PATH). */
export function ramDiskUsable(dir) {
  try {
    const info = statfsSync(dir, { bigint: true });
    if (Number(info.type) !== TMPFS_MAGIC || info.bavail * info.bsize < BigInt(MIN_FREE_BYTES)) return false;
    accessSync(dir, constants.W_OK);
  } catch {
    return false;
  }
  let probe;
  try {
    probe = mkdtempSync(join(dir, "rpg-forge-probe-"));
    const script = join(probe, "run-me");
    writeFileSync(script, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    return spawnSync(script).status === 0;
  } catch {
    // Full, out of inodes, or refused by a security module although access() said yes.
    return false;
  } finally {
    if (probe) rmSync(probe, { recursive: true, force: true });
  }
}
