/**
 * Resource limits for the processes that run generated code, set with setrlimit in the
 * sandboxed interpreter before pytest starts (every process it starts inherits them).
 * They keep a hostile or careless implementation from filling the disk, the memory or
 * the process table of the machine (a GitHub runner is shared with the user's other
 * steps). The wall-clock limit is separate: see PytestRun.perTestTimeoutMs.
 */
export interface ResourceLimits {
  /** Address space of each process, in MiB (RLIMIT_AS). */
  memoryMiB: number;
  /** Largest file a process may write, in MiB (RLIMIT_FSIZE). */
  fileSizeMiB: number;
  /** Processes of the user (RLIMIT_NPROC); not enforced for root outside bubblewrap. */
  processes: number;
  /** CPU seconds of each process (RLIMIT_CPU). */
  cpuSeconds: number;
}

/**
 * Generous for a unit-test suite, small next to a runner (7 GB, 2 cores). Address space
 * counts reservations too (thread stacks, mmap'd libraries), hence 4 GiB for code that
 * really uses a few hundred MiB at most.
 */
export const DEFAULT_LIMITS: ResourceLimits = { memoryMiB: 4096, fileSizeMiB: 64, processes: 1024, cpuSeconds: 600 };

/** The CLI flag that sets each limit, for messages and --help. */
export const LIMIT_FLAGS: Record<keyof ResourceLimits, string> = {
  memoryMiB: "--memory-limit",
  fileSizeMiB: "--file-size-limit",
  processes: "--process-limit",
  cpuSeconds: "--cpu-limit",
};

/** The limits with the given ones in place of the defaults; a limit must be a positive whole number. */
export function resolveLimits(given: Partial<ResourceLimits> = {}): ResourceLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ResourceLimits)[]) {
    const value = given[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${LIMIT_FLAGS[key]} must be a positive whole number, got ${value}`);
    limits[key] = value;
  }
  return limits;
}

/** (resource name, value) pairs for Python's resource.setrlimit. */
export function rlimitPairs(limits: ResourceLimits): [string, number][] {
  const MiB = 1024 * 1024;
  return [
    ["RLIMIT_AS", limits.memoryMiB * MiB],
    ["RLIMIT_FSIZE", limits.fileSizeMiB * MiB],
    ["RLIMIT_NPROC", limits.processes],
    ["RLIMIT_CPU", limits.cpuSeconds],
    // No core dump, ever: a forked copy of the gate that dumps core writes the run's key to a file the tests can read.
    // One byte, not zero: a core_pattern that pipes dumps to a program ignores the limit, except for this value.
    ["RLIMIT_CORE", 1],
  ];
}
