import { readdir, readFile } from "node:fs/promises";

/** The variable every process of a run inherits, whose value names the run. */
export const RUN_MARK_VARIABLE = "RPG_FORGE_RUN";

/**
 * Kills every process whose environment carries `mark`: those a run left behind after
 * leaving its process group with setsid(). In process mode nothing else finds them, and
 * one left running could meddle with the next run. A process that replaced its whole
 * environment escapes this; bubblewrap's PID namespace is the real answer.
 */
export async function killMarkedProcesses(mark: string): Promise<number[]> {
  const needle = Buffer.from(`${RUN_MARK_VARIABLE}=${mark}\0`);
  const killed: number[] = [];
  const pids = await readdir("/proc").catch(() => [] as string[]);
  for (const pid of pids.filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)) {
    const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
    if (!environ?.includes(needle)) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      killed.push(Number(pid));
    } catch {
      // gone already, or not ours to kill
    }
  }
  return killed;
}
