import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { createInterface } from "node:readline";

/**
 * rpg-forge's own Python helper scripts (outlines, import analysis, the review) run in
 * long-lived `python -I` workers instead of a process per call: starting python3 costs
 * about 50 ms, and a node needs a dozen of these calls. A worker runs one script at a
 * time, each in a fresh namespace with its own stdin and stdout, exactly as `python -I -c`
 * would see them; a script that ends the interpreter (or a parser crash on hostile input)
 * takes only its own call with it, and the next call starts a new worker.
 *
 * The scripts only parse source or read package metadata; they never run generated code.
 */
const WORKER = String.raw`
import base64, gc, io, json, signal, sys, traceback
# Ctrl-C reaches the whole process group: stopping is the run's to decide; a worker ends when its stdin does.
signal.signal(signal.SIGINT, signal.SIG_IGN)
requests, replies = sys.stdin, sys.stdout
compiled = {}
for line in requests:
    req = json.loads(line)
    if "script" in req:
        compiled[req["key"]] = compile(req["script"], "<rpg-forge helper>", "exec")
    stdout = io.BytesIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(base64.b64decode(req["input"])), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(stdout, encoding="utf-8", write_through=True)
    sys.stderr = io.StringIO()
    status = 0
    try:
        exec(compiled[req["key"]], {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    except BaseException:
        status = 1
        traceback.print_exc(file=sys.stderr)
    sys.stdout.flush()
    # Read before the wrappers go: a TextIOWrapper closes the buffer under it when it is collected.
    out, err = stdout.getvalue(), sys.stderr.getvalue()
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
    replies.write(json.dumps({"status": status, "stdout": base64.b64encode(out).decode(), "stderr": err[-4000:]}) + "\n")
    replies.flush()
    # A script may turn the collector off (the review does, for speed): each call starts as python would start,
    # with it on, and with what such a script left behind collected. Only the youngest generation: nothing made while
    # the collector was off has been collected, so it is all there. A full collection after each review cost 8 ms,
    # ten times the review itself, in front of the next call of its batch (issue 16).
    if not gc.isenabled():
        gc.enable()
        gc.collect(0)
`;

export interface ScriptResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

interface Job {
  key: string;
  script: string;
  input: string;
  resolve: (result: ScriptResult) => void;
  reject: (error: Error) => void;
}

/**
 * One python process. It runs one script at a time, in the order asked; the calls asked in one
 * tick are written to it together (one round trip for all of them), and it answers them line by
 * line. A call that ends the interpreter takes only itself down: the calls behind it go back to
 * the pool, for another worker.
 */
class Worker {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly known = new Set<string>();
  /** The calls written to it and not answered yet, oldest first. */
  private readonly inFlight: Job[] = [];
  dead = false;

  constructor(
    python: string,
    private readonly pool: { release(): void; requeue(jobs: Job[]): void },
  ) {
    this.child = spawn(python, ["-I", "-c", WORKER], { stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } });
    this.child.stdin.on("error", () => undefined);
    this.child.stderr.resume();
    createInterface({ input: this.child.stdout }).on("line", (line) => this.answer(line));
    this.child.on("error", (error) => this.die(error, null));
    this.child.on("close", (code) => this.die(new Error(`python exited (${code})`), code));
    this.idle();
  }

  get busy(): boolean {
    return this.inFlight.length > 0;
  }

  run(jobs: readonly Job[]): void {
    traffic.batches++;
    traffic.requests += jobs.length;
    this.inFlight.push(...jobs);
    this.hold();
    const lines = jobs.map((job) => {
      const request: Record<string, string> = { key: job.key, input: Buffer.from(job.input, "utf8").toString("base64") };
      if (!this.known.has(job.key)) request.script = job.script;
      this.known.add(job.key);
      return `${JSON.stringify(request)}\n`;
    });
    this.child.stdin.write(lines.join(""));
  }

  private answer(line: string): void {
    const job = this.inFlight.shift();
    if (!job) return;
    let reply: { status: number; stdout: string; stderr: string };
    try {
      reply = JSON.parse(line) as typeof reply;
    } catch {
      // Not the worker's own answer (something wrote past it): the call fails, the worker is not trusted
      // again, and the calls behind it go to another.
      job.resolve({ status: 1, stdout: "", stderr: `the helper wrote outside its answer: ${line.slice(0, 200)}` });
      this.dead = true;
      this.child.kill();
      this.pool.requeue(this.inFlight.splice(0));
      this.pool.release();
      return;
    }
    job.resolve({ status: reply.status, stdout: Buffer.from(reply.stdout, "base64").toString("utf8"), stderr: reply.stderr });
    if (this.inFlight.length === 0) {
      this.idle();
      this.pool.release();
    }
  }

  /** The call it was running gets what a process of its own would have given: its exit status, or the spawn error. */
  private die(error: Error, code: number | null): void {
    if (this.dead) return;
    this.dead = true;
    const job = this.inFlight.shift();
    const behind = this.inFlight.splice(0);
    if (job) {
      if (code === null && (error as NodeJS.ErrnoException).code) job.reject(error);
      else job.resolve({ status: code, stdout: "", stderr: error.message });
    }
    // A python that does not start fails every call; one that died running a script, only that one.
    if (code === null && (error as NodeJS.ErrnoException).code) for (const other of behind) other.reject(error);
    else this.pool.requeue(behind);
    this.pool.release();
  }

  // An idle worker must not keep a finished CLI run alive; a busy one must, until it answers.
  private idle(): void {
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { unref?(): void }).unref?.();
  }

  private hold(): void {
    this.child.ref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { ref?(): void }).ref?.();
  }
}

/**
 * The workers of one python executable, started when first needed, at most one per core (4 at
 * the most). The calls asked in one tick go out together, to one idle worker: the independent
 * calls of a code application cost one round trip.
 */
class Pool {
  private readonly workers: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly size = Math.max(1, Math.min(4, availableParallelism()));
  private scheduled = false;

  constructor(private readonly python: string) {}

  run(script: string, input: string): Promise<ScriptResult> {
    const key = keyOf(script);
    return new Promise((resolve, reject) => {
      this.queue.push({ key, script, input, resolve, reject });
      this.schedule();
    });
  }

  /** A worker is free again, or gone: the queue may move. */
  release(): void {
    this.schedule();
  }

  requeue(jobs: Job[]): void {
    this.queue.unshift(...jobs);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the calls of this tick are queued: they go together.
    queueMicrotask(() => {
      this.scheduled = false;
      this.next();
    });
  }

  private next(): void {
    for (let i = this.workers.length - 1; i >= 0; i--) if (this.workers[i]!.dead) this.workers.splice(i, 1);
    if (this.queue.length === 0) return;
    const idle = this.workers.filter((w) => !w.busy);
    if (idle.length === 0) {
      // A new worker only when none is free: starting python costs more than waiting for a few calls.
      if (this.workers.length >= this.size) return;
      const started = new Worker(this.python, this);
      this.workers.push(started);
      idle.push(started);
    }
    traffic.rounds++;
    const each = Math.ceil(this.queue.length / idle.length);
    for (const worker of idle) if (this.queue.length > 0) worker.run(this.queue.splice(0, each));
  }
}

const pools = new Map<string, Pool>();

/**
 * The scripts are a dozen constants of 2–40 KB, and a node runs them a dozen times: hashing the application script
 * again on every call was about 2 ms of a node's CPU (issue 16). A map from the text itself finds it by V8's own hash of
 * the string, which the string keeps. Bounded all the same, should a caller ever build its script.
 */
const keys = new Map<string, string>();
const MAX_KEYS = 64;

function keyOf(script: string): string {
  let key = keys.get(script);
  if (key === undefined) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createHash("sha256").update(script).digest("hex");
    keys.set(script, key);
  }
  return key;
}

// Counted for the tests that hold an operation to its round trips (decision 0018): batches written, and calls in them;
// and the rounds of dispatching, each sending what was queued at once (to one worker, or split among idle ones).
const traffic = { batches: 0, requests: 0, rounds: 0 };

/**
 * How many batches of calls and calls this process has written to its workers so far, and in how many rounds: calls
 * that go out in one round wait for none of the others, whether one worker takes them or several.
 */
export function helperTraffic(): { batches: number; requests: number; rounds: number } {
  return { ...traffic };
}

/** Runs one helper script with `input` on its stdin, in a worker of `python`. */
export function runInWorker(python: string, script: string, input: string): Promise<ScriptResult> {
  let pool = pools.get(python);
  if (!pool) pools.set(python, (pool = new Pool(python)));
  return pool.run(script, input);
}
