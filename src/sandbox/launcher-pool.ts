import { rmSync } from "node:fs";
import type { Launcher } from "./launcher.js";
import { removeTree } from "./remove-tree.js";

/** A launcher and the private folder it was started with (its gates' HOME, TMPDIR and JUnit reports go in it). */
export interface PooledLauncher {
  launcher: Launcher;
  privateDir: string;
}

// A launcher holds an interpreter with pytest imported (tens of MB): a few are kept for the next gates, for a while.
const IDLE_MS = 20_000;
const MAX_IDLE = 4;

interface Idle extends PooledLauncher {
  key: string;
  timer: NodeJS.Timeout;
}

const idle: Idle[] = [];
const living = new Set<PooledLauncher>();
let hooked = false;

/**
 * Runs `use` with a free launcher of `key` (the interpreter and sandbox it stands for), started by `start` when none is
 * idle. Afterwards the launcher waits, idle, for the next gate of that key, or is retired when it died, retired itself,
 * or waited too long.
 */
export async function withLauncher<T>(
  key: string,
  start: () => Promise<PooledLauncher>,
  use: (pooled: PooledLauncher) => Promise<T>,
): Promise<T> {
  const pooled = take(key) ?? (await started(start));
  try {
    return await use(pooled);
  } finally {
    if (pooled.launcher.free) keep(key, pooled);
    else void retire(pooled);
  }
}

async function started(start: () => Promise<PooledLauncher>): Promise<PooledLauncher> {
  const pooled = await start();
  living.add(pooled);
  if (!hooked) {
    hooked = true;
    // A process that exits with launchers idle: each would exit at the end of its input, but its folder would stay.
    process.on("exit", () => {
      for (const { launcher, privateDir } of living) {
        launcher.end();
        try {
          rmSync(privateDir, { recursive: true, force: true });
        } catch {
          // A tree the tests made too deep to remove by path: a leftover in the temp folder, not a failed exit.
        }
      }
    });
  }
  return pooled;
}

function take(key: string): PooledLauncher | undefined {
  for (let i = idle.length - 1; i >= 0; i--) {
    const entry = idle[i]!;
    if (entry.key !== key || !entry.launcher.free) continue;
    idle.splice(i, 1);
    clearTimeout(entry.timer);
    return { launcher: entry.launcher, privateDir: entry.privateDir };
  }
  return undefined;
}

function keep(key: string, pooled: PooledLauncher): void {
  const timer = setTimeout(() => {
    const at = idle.findIndex((entry) => entry.launcher === pooled.launcher);
    if (at >= 0) void retire(idle.splice(at, 1)[0]!);
  }, IDLE_MS);
  timer.unref();
  idle.push({ ...pooled, key, timer });
  while (idle.length > MAX_IDLE) {
    const oldest = idle.shift()!;
    clearTimeout(oldest.timer);
    void retire(oldest);
  }
}

async function retire(pooled: PooledLauncher): Promise<void> {
  for (const entry of living) if (entry.launcher === pooled.launcher) living.delete(entry);
  await pooled.launcher.close();
  await removeTree(pooled.privateDir);
}
