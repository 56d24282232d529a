import { spawn } from "node:child_process";
import { once } from "node:events";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { CapturedOutput } from "./captured-output.js";
import { killMarkedProcesses, RUN_MARK_VARIABLE } from "./marked-processes.js";

export interface GroupCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Wall-clock limit; when it passes, the whole process group is killed. */
  hardLimitMs: number;
  signal?: AbortSignal;
  /** Opens STATUS_FD as a pipe whose text is returned as `status` (for bwrap's --json-status-fd). */
  statusFd?: boolean;
  /** Written to SECRET_FD, which is then closed: how the gate's key reaches the child without argv, env or a file. */
  secretInput?: Buffer;
  /** When given, opens REPORT_FD as a pipe whose bytes, up to this many, are returned as `report` (the gate's signed report). */
  maxReportBytes?: number;
}

export interface GroupExit {
  /** Exit status, or 128 + signal number when the leader died of a signal (the shell's convention). */
  code: number;
  /** Set when we killed the group. */
  killedBy: "time-limit" | "abort" | undefined;
  output: string;
  status: string;
  /** What arrived on REPORT_FD, cut at maxReportBytes. */
  report: Buffer;
}

/** The child's descriptors beyond stdio, in the order of spawn's stdio array. */
export const STATUS_FD = 3;
export const SECRET_FD = 4;
export const REPORT_FD = 5;

// After the leader exits, its pipes close once every process holding them is gone. A
// process that escaped the group (setsid) can hold them open indefinitely; we stop
// waiting after this long rather than hang the run.
const PIPE_DRAIN_MS = 2_000;

/**
 * Runs a command as the leader of a new process group (and session), stdin closed,
 * stdout and stderr captured together. Whatever happens, every process still in the
 * group is killed with SIGKILL once the leader has exited: generated code must not leave
 * anything running behind the test run. Rejects only when the command cannot be spawned.
 */
export async function runInOwnGroup(cmd: GroupCommand): Promise<GroupExit> {
  const child = spawn(cmd.command, cmd.args, {
    cwd: cmd.cwd,
    env: cmd.env,
    detached: true, // setsid(): the child leads a new group we can kill as one
    // Indexes STATUS_FD, SECRET_FD and REPORT_FD.
    stdio: [
      "ignore",
      "pipe",
      "pipe",
      cmd.statusFd ? "pipe" : "ignore",
      cmd.secretInput ? "pipe" : "ignore",
      cmd.maxReportBytes ? "pipe" : "ignore",
    ],
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  exited.catch(() => undefined); // a spawn failure rejects this too; it is reported below
  const closed = once(child, "close").catch(() => undefined);
  // Spawn failures (ENOENT, EACCES, a missing cwd) arrive as "error" before any exit.
  await once(child, "spawn");

  const output = new CapturedOutput();
  const capture = (stream: Readable | null): void => {
    stream?.setEncoding("utf8");
    stream?.on("data", (text: string) => output.append(text));
  };
  capture(child.stdout);
  capture(child.stderr);
  let status = "";
  const statusStream = child.stdio[STATUS_FD] as Readable | null | undefined;
  statusStream?.setEncoding("utf8");
  statusStream?.on("data", (text: string) => (status += text));
  const secretStream = child.stdio[SECRET_FD] as Writable | null | undefined;
  secretStream?.on("error", () => undefined); // a child that dies before reading it
  secretStream?.end(cmd.secretInput);
  const reportChunks: Buffer[] = [];
  let reportBytes = 0;
  const reportStream = (child.stdio as unknown as (Readable | null | undefined)[])[REPORT_FD];
  reportStream?.on("data", (chunk: Buffer) => {
    if (reportBytes >= (cmd.maxReportBytes ?? 0)) return;
    reportChunks.push(chunk);
    reportBytes += chunk.length;
  });

  let killedBy: GroupExit["killedBy"];
  const killGroup = (): void => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // ESRCH: the group is already empty.
    }
  };
  const timer = setTimeout(() => {
    killedBy ??= "time-limit";
    killGroup();
  }, cmd.hardLimitMs);
  const onAbort = (): void => {
    killedBy ??= "abort";
    killGroup();
  };
  cmd.signal?.addEventListener("abort", onAbort, { once: true });
  if (cmd.signal?.aborted) onAbort();

  try {
    const [code, signal] = await exited;
    killGroup(); // stragglers: children the tests forked or started in the background
    // And those that left the group with setsid(), found by the run's mark in their environment.
    const mark = cmd.env[RUN_MARK_VARIABLE];
    if (mark) await killMarkedProcesses(mark);
    const drained = await Promise.race([closed.then(() => true), sleep(PIPE_DRAIN_MS, false, { ref: false })]);
    if (!drained) for (const stream of [child.stdout, child.stderr, statusStream, reportStream]) stream?.destroy();
    const report = Buffer.concat(reportChunks);
    return { code: code ?? 128 + signalNumber(signal), killedBy, output: output.toString(), status, report };
  } finally {
    clearTimeout(timer);
    cmd.signal?.removeEventListener("abort", onAbort);
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? (constants.signals[signal] ?? 0) : 0;
}
