import type { DependencyCheck } from "../record/dependency-check.js";
import type { Checkpoint } from "./checkpoint.js";

export interface DependencyCheckStepOptions {
  /** Whether every node of the run has its outcome in the checkpoint. */
  settled: (checkpoint: Checkpoint) => boolean;
  /** A node's files, as the language server is told of them. */
  filesOf: (nodeId: string) => readonly string[];
  /** Notes that these files of the work tree changed, for the language server to hear before its next question; never rejects. */
  tell: (paths: readonly string[]) => Promise<void>;
  /** The check of the work tree's code; undefined when it could not be made. Never rejects. */
  check: () => Promise<DependencyCheck | undefined>;
}

/**
 * A run's dependency check (the RPG's planned dependencies against the references in the code), and what the language
 * server is told of the nodes' files before it. The check starts as soon as every node has settled, when the work tree
 * holds the package's code: the subgraphs' integration tests come next, and they read the output and write nothing the
 * check reads, so the server answers while the model writes them and pytest runs them (issue 16: at the end of every
 * run, the check had waited for them).
 */
export class DependencyCheckStep {
  private readonly told = new Set<string>();
  /** The nodes that settled in this run (their lines are out): whose files the server may not have read. */
  private readonly settledHere = new Set<string>();
  private started: Promise<DependencyCheck | undefined> | undefined;
  private taken = false;

  constructor(private readonly options: DependencyCheckStepOptions) {}

  /** A node's outcome is in and its line out. */
  nodeSettled(nodeId: string): void {
    this.settledHere.add(nodeId);
  }

  /** Tells the server each node's files as the node left them (its code, or restored), once a node. */
  tellNodes(nodeIds: Iterable<string>): Promise<void> {
    const untold = [...nodeIds].filter((id) => !this.told.has(id));
    for (const id of untold) this.told.add(id);
    return this.options.tell(untold.flatMap((id) => this.options.filesOf(id)));
  }

  /**
   * Starts the check once every node has settled (once a run); before, it does nothing. `unannounced`: nodes whose
   * outcome is in the checkpoint before their line.
   */
  startWhenSettled(checkpoint: Checkpoint, unannounced: Iterable<string> = []): void {
    if (this.started || !this.options.settled(checkpoint)) return;
    this.start(unannounced);
  }

  private start(unannounced: Iterable<string>): void {
    // The nodes of this run not told yet: the last to settle, whose bookkeeping comes after the integration tests.
    this.started = this.tellNodes([...this.settledHere, ...unannounced]).then(() => this.options.check());
  }

  /**
   * For a node's bookkeeping: the check once every node has settled, started now if it was not. The first call then
   * has it; later calls, and calls before, have nothing (undefined), as a check that could not be made has nothing.
   */
  async result(checkpoint: Checkpoint): Promise<DependencyCheck | undefined> {
    if (this.taken || !this.options.settled(checkpoint)) return undefined;
    this.taken = true;
    // Settled, as just asked: no second walk over the run's nodes.
    if (!this.started) this.start([]);
    return this.started;
  }

  /**
   * For the run's end, when no node recorded a check: the one the end started if no node took it (a resume with no
   * node left to run), else one more attempt.
   */
  async atRunEnd(): Promise<DependencyCheck | undefined> {
    if (this.started && !this.taken) {
      this.taken = true;
      return this.started;
    }
    return this.options.check();
  }

  /**
   * Waits for a check that was started and not taken (a run that threw during the integration tests or while writing
   * the checkpoint): the language server stopped under it would fail it, and the user would read of a failure that is
   * none. Never rejects.
   */
  async finished(): Promise<void> {
    await this.started?.catch(() => undefined);
  }
}
