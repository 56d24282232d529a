import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import { CapturedOutput } from "./captured-output.js";
import { FRAME, PROGRAM_FD } from "./gate-launcher-source.js";

/** How to start a launcher: the command (python, or bwrap and then python) and where. */
export interface LauncherCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to PROGRAM_FD, which is then closed: what PROGRAM_LOADER on the command line runs. */
  program: string;
  /** Whether the gates' process ids are this process's too (no PID namespace of their own). */
  sharesPids: boolean;
}

/** One gate for a launcher to run (decision 0031). */
export interface GateRequest {
  /** The package directory: the gate's working directory. */
  cwd: string;
  env: Record<string, string>;
  /** What _gate is called with, as JSON. */
  settings: Record<string, unknown>;
  /** Wall-clock limit; when it passes, the launcher ends the gate and everything it started. */
  hardLimitMs: number;
  /** The run's key and what follows it: sent after the request's line, never in an argument or a variable. */
  secret: Buffer;
  signal?: AbortSignal;
}

export interface GateExit {
  /** Exit status, or 128 + signal number when the gate died of a signal (the shell's convention); -1 when it never ended. */
  code: number;
  /** Set when the gate was ended: its limit passed, the run was aborted, or the launcher serving it died. */
  killedBy: "time-limit" | "abort" | "launcher" | undefined;
  output: string;
  /** What the gate wrote to its report's pipe. */
  report: Buffer;
}

// The launcher answers a gate's end once its leftovers are gone (up to 5 s) and its pipes drained (up to 2 s): past
// its limit by more than this, it is stuck, and it is ended with its gate.
const ANSWER_GRACE_MS = 15_000;
const STDERR_KEPT = 4_000;
// A launcher not ready by then (an interpreter or a sandbox that hangs while it starts) is ended: the gate fails to start.
const START_LIMIT_MS = 60_000;

type LauncherProcess = ChildProcessByStdio<Writable, Readable, Readable>;

interface Pending {
  /** The gate's process id, once the launcher has said it. */
  pid?: number;
  output: CapturedOutput;
  report: Buffer[];
  resolve: (exit: GateExit) => void;
}

/**
 * A running launcher: a Python process that has imported pytest once and forks a child for each gate (decision 0031).
 * It serves one gate at a time. Once it has died or retired it serves none; `alive` says so.
 */
export class Launcher {
  private buffered: Buffer = Buffer.alloc(0);
  private stderr = "";
  private pending: Pending | undefined;
  private exited = false;
  private retired = false;

  private overdue = false;
  private readonly ready: Promise<void>;
  private markReady: () => void = () => undefined;

  private constructor(
    private readonly child: LauncherProcess,
    private readonly describe: string,
    private readonly sharesPids: boolean,
  ) {
    child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => (this.stderr = (this.stderr + text).slice(-STDERR_KEPT)));
    child.stdin.on("error", () => undefined); // a launcher that died; its end says so
    // "close" rather than "exit": the last frames may still be in the pipe when the process has exited.
    const closed = once(child, "close");
    this.ready = new Promise<void>((resolve, reject) => {
      this.markReady = resolve;
      closed.then(
        () => reject(new Error(this.lastWords())),
        (error: unknown) => reject(error as Error),
      );
    });
    this.ready.catch(() => undefined);
    void closed.then(
      () => this.died(),
      () => this.died(),
    );
  }

  /** Starts a launcher and waits until it is ready; rejects with its last words when it is not. */
  static async start(command: LauncherCommand, describe: string): Promise<Launcher> {
    const child = spawn(command.command, command.args, {
      cwd: command.cwd,
      env: command.env,
      // Its own process group and session: the terminal's Ctrl-C reaches the engine, which ends the gate itself.
      detached: true,
      stdio: ["pipe", "pipe", "pipe", "pipe"],
    }) as unknown as LauncherProcess;
    const spawned = once(child, "spawn");
    const program = child.stdio[PROGRAM_FD] as Writable;
    program.on("error", () => undefined); // a launcher that died before reading it; its end says so
    program.end(command.program);
    const launcher = new Launcher(child, describe, command.sharesPids);
    await spawned;
    const late = setTimeout(() => launcher.end(), START_LIMIT_MS);
    try {
      await launcher.ready;
    } finally {
      clearTimeout(late);
    }
    launcher.idle();
    return launcher;
  }

  get alive(): boolean {
    return !this.exited && !this.retired;
  }

  /** The launcher's process id: for measures (the bench reads its CPU from /proc). */
  get pid(): number {
    return this.child.pid!;
  }

  /** Alive and serving no gate. */
  get free(): boolean {
    return this.alive && this.pending === undefined;
  }

  /** Runs one gate. Resolves with how it ended; never rejects. */
  run(request: GateRequest): Promise<GateExit> {
    if (this.pending || !this.alive) throw new Error(`the launcher ${this.describe} is not free`);
    this.busy();
    const { secret, signal, ...gate } = request;
    const answered = new Promise<GateExit>((resolve) => {
      this.pending = { output: new CapturedOutput(), report: [], resolve };
    });
    const onAbort = (): void => void this.child.stdin.write(JSON.stringify({ abort: true }) + "\n");
    signal?.addEventListener("abort", onAbort, { once: true });
    const stuck = setTimeout(() => {
      this.overdue = true;
      this.end();
    }, request.hardLimitMs + ANSWER_GRACE_MS);
    this.child.stdin.write(JSON.stringify({ gate: { ...gate }, secret: secret.length }) + "\n");
    this.child.stdin.write(secret);
    if (signal?.aborted) onAbort();
    return answered.finally(() => {
      clearTimeout(stuck);
      signal?.removeEventListener("abort", onAbort);
      this.idle();
    });
  }

  /** Takes it out of service once its gate is answered: what a gate left could not be undone. */
  retire(): void {
    this.retired = true;
  }

  /** Ends the launcher: the end of its input when it is free, a kill when it is not. Resolves once it has exited. */
  async close(): Promise<void> {
    if (this.exited) return;
    const exited = once(this.child, "close").catch(() => undefined);
    // An idle launcher's pipes keep nothing alive; waiting for its end must.
    this.busy();
    if (this.pending) this.end();
    else this.child.stdin.end();
    await exited;
  }

  /** Kills the launcher's process group; in bubblewrap, that ends the sandbox and everything in it. */
  end(): void {
    try {
      process.kill(-this.child.pid!, "SIGKILL");
    } catch {
      // gone already
    }
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 5) {
      const length = this.buffered.readUInt32BE(1);
      if (this.buffered.length < 5 + length) return;
      const kind = String.fromCharCode(this.buffered[0]!);
      const payload = this.buffered.subarray(5, 5 + length);
      this.buffered = this.buffered.subarray(5 + length);
      this.frame(kind, payload);
    }
  }

  private frame(kind: string, payload: Buffer): void {
    const pending = this.pending;
    if (kind === FRAME.ready) return this.markReady();
    if (!pending) return;
    if (kind === FRAME.pid) pending.pid = Number(payload.toString("ascii"));
    else if (kind === FRAME.output) pending.output.append(payload.toString("utf8"));
    else if (kind === FRAME.report) pending.report.push(Buffer.from(payload));
    else if (kind === FRAME.exit) {
      const answer = JSON.parse(payload.toString("utf8")) as { code: number; killedBy: GateExit["killedBy"] | null; retire: boolean };
      if (answer.retire) this.retired = true;
      this.settle({ code: answer.code, killedBy: answer.killedBy ?? undefined });
    }
  }

  private settle(end: Pick<GateExit, "code" | "killedBy">): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    pending.resolve({ ...end, output: pending.output.toString(), report: Buffer.concat(pending.report) });
  }

  private died(): void {
    this.exited = true;
    // The gate dies with its launcher; what it started in its group would live on with nobody to end it. In bubblewrap
    // the sandbox's end ends everything, and the id is the sandbox's own.
    if (this.pending?.pid !== undefined && this.sharesPids) {
      try {
        process.kill(-this.pending.pid, "SIGKILL");
      } catch {
        // the group is gone
      }
    }
    if (this.pending) {
      this.pending.output.append(`\nrpg-forge: the launcher serving this gate ended before the gate did: ${this.lastWords()}\n`);
      this.settle({ code: -1, killedBy: this.overdue ? "time-limit" : "launcher" });
    }
  }

  private lastWords(): string {
    const lines = this.stderr.split("\n").filter((line) => line.trim() !== "");
    return lines.at(-1) ?? `${this.describe} exited`;
  }

  // An idle launcher keeps neither the event loop nor the process alive: it exits at the end of its input.
  private idle(): void {
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
  }

  private busy(): void {
    this.child.ref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { ref?: () => void }).ref?.();
  }
}
