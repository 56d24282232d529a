import { oneAtATime } from "./one-at-a-time.js";

/**
 * The order nodes run in: each starts once everything it depends on has settled, in plan order,
 * up to `concurrency` at a time, never two on one file. A write of some files holds only those:
 * it waits for the nodes running on them, keeps new ones off them until it is done, and every
 * other node goes on starting and running meanwhile (issue 16: before, a batch write stopped
 * every start until all running nodes had finished).
 *
 * It knows nothing of checkpoints or models: run.ts hands it the hooks that do.
 */

export interface SchedulerPlan {
  /** The nodes to visit, in plan order. */
  order: readonly string[];
  /** What a node waits for; ids outside `order` count as settled. */
  dependenciesOf(id: string): readonly string[];
  /** The files a running node edits. */
  filesOf(id: string): readonly string[];
}

/** What a ready node needs: its executor, nothing more (it settles at once), or the run stops here. */
export type Admission = "run" | "done" | "stop";

export interface SchedulerHooks {
  admit(id: string): Promise<Admission>;
  /** Runs a node; false when it did not settle (interrupted), which stops the run. A throw stops it too, and is rethrown. */
  execute(id: string): Promise<boolean>;
  /** A node's bookkeeping once it settled: one at a time, in the order nodes settle. */
  settled(id: string): Promise<void>;
}

export class Scheduler {
  readonly #plan: SchedulerPlan;
  readonly #hooks: SchedulerHooks;
  readonly #limit: number;
  /** Running nodes and their files. */
  readonly #running = new Map<string, readonly string[]>();
  /** The files of each write under way, asked again whenever it is checked (a write's set may grow while it waits). */
  readonly #holds = new Set<() => ReadonlySet<string>>();
  #wakers: (() => void)[] = [];
  /** Counts the changes, so that a pass of the loop knows whether one happened while it awaited. */
  #version = 0;
  readonly #serially = oneAtATime();
  #stopped = false;
  #failure: { error: unknown } | undefined;

  constructor(plan: SchedulerPlan, hooks: SchedulerHooks, concurrency = 1) {
    this.#plan = plan;
    this.#hooks = hooks;
    this.#limit = Math.max(1, concurrency);
  }

  /** How many nodes are running now. */
  get inFlight(): number {
    return this.#running.size;
  }

  /**
   * Runs `task` once no running node edits a file of `files()`, and starts no node on those
   * files until it is done. Call it from a node's bookkeeping (`settled`) or anywhere else.
   */
  async hold<T>(files: () => ReadonlySet<string>, task: () => Promise<T>): Promise<T> {
    this.#holds.add(files);
    // The bookkeeping that holds is now blocked: the loop may start other nodes meanwhile.
    this.#wake();
    try {
      while ([...this.#running.values()].some((own) => own.some((file) => files().has(file)))) await this.#changed();
      return await task();
    } finally {
      this.#holds.delete(files);
      this.#wake();
    }
  }

  /** Visits every node of the plan; resolves when all settled or the run stopped, rejects with the first throw. */
  async run(): Promise<void> {
    const queue = [...this.#plan.order];
    const inPlan = new Set(queue);
    const settled = new Set<string>();
    const tasks = new Set<Promise<void>>();
    this.#stopped = false;
    this.#failure = undefined;
    const ready = (id: string) => this.#plan.dependenciesOf(id).every((dep) => !inPlan.has(dep) || settled.has(dep));
    const track = (task: Promise<void>) => {
      const tracked = task.catch((error: unknown) => this.#stop(error));
      tasks.add(tracked);
      void tracked.finally(() => {
        tasks.delete(tracked);
        this.#wake();
      });
    };
    const settle = (id: string) =>
      this.#serially(async () => {
        await this.#hooks.settled(id);
        settled.add(id);
      });

    for (;;) {
      const seen = this.#version;
      let progressed = false;
      for (let i = 0; !this.#stopped && this.#running.size < this.#limit && i < queue.length; i++) {
        const id = queue[i]!;
        if (!ready(id) || this.#plan.filesOf(id).some((file) => this.#busy(file))) continue;
        queue.splice(i--, 1);
        progressed = true;
        const admission = await this.#hooks.admit(id);
        if (admission === "stop") {
          this.#stopped = true;
          break;
        }
        if (admission === "run") track(this.#start(id, settle));
        // Settled in this pass, so that its dependents are ready in it too (a skipped chain keeps the plan's
        // order); while a write holds the bookkeeping, in the background instead, so that the loop goes on.
        else if (this.#holds.size === 0) await settle(id);
        else track(settle(id));
      }
      if (queue.length === 0 && tasks.size === 0) break;
      // Something settled or freed a file while this pass awaited an admission: look again at once.
      if (progressed || this.#version !== seen) continue;
      if (tasks.size === 0) break;
      await this.#changed();
    }
    // Set by tasks while the loop awaited: TypeScript cannot see it, hence the re-read through a method.
    const failure = this.#failureOf();
    if (failure) throw failure.error;
  }

  #failureOf(): { error: unknown } | undefined {
    return this.#failure;
  }

  /** Runs a node's executor, then its bookkeeping; one that does not settle, or throws, stops the run. */
  async #start(id: string, settle: (id: string) => Promise<void>): Promise<void> {
    this.#running.set(id, this.#plan.filesOf(id));
    let finished = false;
    try {
      finished = await this.#hooks.execute(id);
      if (!finished) this.#stopped = true;
    } catch (error) {
      this.#stop(error);
    } finally {
      this.#running.delete(id);
    }
    // Without a write under way the loop waits for the node's bookkeeping, so that the nodes it
    // readies start in plan order (with a concurrency of 1, the plain walk over the order). A write
    // waits for running nodes to end, and the loop goes on meanwhile: both are woken now.
    if (this.#holds.size > 0 || !finished) this.#wake();
    if (finished) await settle(id);
  }

  #stop(error: unknown): void {
    this.#failure ??= { error };
    this.#stopped = true;
  }

  #busy(file: string): boolean {
    for (const own of this.#running.values()) if (own.includes(file)) return true;
    for (const files of this.#holds) if (files().has(file)) return true;
    return false;
  }

  #changed(): Promise<void> {
    return new Promise((wake) => this.#wakers.push(wake));
  }

  #wake(): void {
    this.#version++;
    for (const wake of this.#wakers.splice(0)) wake();
  }
}
