import type { Plan, PlannedSubgraph } from "../plan/plan.js";
import type { GitRepository } from "../workspace/git.js";
import type { Checkpoint } from "./checkpoint.js";
import type { RunEventListener } from "./events.js";
import { isComplete, subgraphCommitMessage } from "./history.js";
import { subgraphTag } from "../record/branch-names.js";
import type { Snapshot } from "./snapshot.js";

export interface SubgraphCommitsOptions {
  plan: Plan;
  repo: GitRepository | undefined;
  runId: string;
  /** The nodes this run visits; a subgraph with none of them is another job's (matrix mode). */
  visited: ReadonlySet<string>;
  snapshotOf(subgraphs: ReadonlySet<string>, checkpoint: Checkpoint): Promise<Snapshot>;
  onEvent?: RunEventListener | undefined;
  onNotice?: ((text: string) => void) | undefined;
}

/** A subgraph's commit of this run: the source of its level in the stack of PR branches. */
export interface SubgraphCommit {
  subgraphId: string;
  sha: string;
}

/**
 * The run's history: one commit per subgraph, in the plan's order, each a snapshot of the
 * package once that subgraph and those before it are done (decision 0012). A subgraph is
 * committed once complete and once every earlier one is, so the history, the tags and the
 * stack of PR branches all read in the order the PRs are merged.
 */
export class SubgraphCommits {
  private readonly done = new Set<string>();
  private next = 0;
  private cached: { key: string; snapshot: Snapshot } | undefined;
  /** Subgraphs whose snapshot failed its suite: their code waits for the next commit. */
  private waiting: PlannedSubgraph[] = [];
  readonly commits: SubgraphCommit[] = [];

  constructor(private readonly options: SubgraphCommitsOptions) {}

  /**
   * Commits every subgraph whose turn has come. Called after each node; a subgraph one of whose
   * nodes is `unannounced` (its outcome is in, its line not yet out) waits for that line, so that
   * "Committed subgraph" comes after the line of the node that completed it.
   */
  async commitCompleted(checkpoint: Checkpoint, unannounced: ReadonlySet<string> = new Set()): Promise<void> {
    const { plan, repo } = this.options;
    while (this.next < plan.subgraphs.length) {
      const subgraph = plan.subgraphs[this.next]!;
      if (!isComplete(subgraph, checkpoint) || subgraph.nodes.some((id) => unannounced.has(id))) {
        if (subgraph.nodes.some((id) => this.options.visited.has(id))) return;
        this.next++;
        continue;
      }
      this.next++;
      this.done.add(subgraph.id);
      if (!repo) continue;
      const snapshot = await this.snapshot(checkpoint);
      const suite = snapshot.assembly.suite;
      if (suite && (suite.exitCode !== 0 || suite.failed > 0)) {
        // Its nodes passed, but not without what comes later: it rides along with the next commit.
        this.options.onNotice?.(
          `the package up to subgraph ${subgraph.id} fails ${suite.failed} of its ${suite.total} tests without the later subgraphs' code, so it is committed with the next subgraph`,
        );
        this.waiting.push(subgraph);
        continue;
      }
      const carried = this.waiting;
      this.waiting = [];
      const passed = subgraph.nodes.some((id) => checkpoint.nodes[id]?.status === "passed");
      const subject = passed ? subgraphCommitMessage(subgraph) : `chore: record ${subgraph.name} (no node passed)`;
      const message = carried.length === 0 ? subject : `${subject}\n\n${carriedNote(carried)}`;
      const tag = subgraphTag(this.options.runId, subgraph.id);
      const sha = await repo.commitFiles(snapshot.files, message, tag);
      if (!sha) continue;
      this.commits.push({ subgraphId: subgraph.id, sha });
      this.options.onEvent?.({ type: "subgraph-committed", subgraphId: subgraph.id, sha, tag });
    }
  }

  /**
   * The package once the run is over: every completed subgraph. Whatever no subgraph
   * commit holds yet (a subgraph that rode along to the end) gets a last commit.
   */
  async finish(checkpoint: Checkpoint): Promise<Snapshot> {
    await this.commitCompleted(checkpoint);
    const snapshot = await this.snapshot(checkpoint);
    const { repo } = this.options;
    const last = this.waiting.at(-1);
    if (repo && last) {
      // The whole package, failing tests and all, as the report says: the run's state is never left uncommitted.
      const tag = subgraphTag(this.options.runId, last.id);
      const earlier = this.waiting.slice(0, -1);
      const message = earlier.length === 0 ? subgraphCommitMessage(last) : `${subgraphCommitMessage(last)}\n\n${carriedNote(earlier)}`;
      const sha = await repo.commitFiles(snapshot.files, message, tag);
      if (sha) {
        this.commits.push({ subgraphId: last.id, sha });
        this.options.onEvent?.({ type: "subgraph-committed", subgraphId: last.id, sha, tag });
      }
    } else if (repo) {
      await repo.commitFiles(snapshot.files, "chore: record the run");
    }
    return snapshot;
  }

  /** The subgraphs done so far, as one snapshot; the same state is built once. */
  private async snapshot(checkpoint: Checkpoint): Promise<Snapshot> {
    const key = JSON.stringify([[...this.done], checkpoint.nodes]);
    if (this.cached?.key !== key) this.cached = { key, snapshot: await this.options.snapshotOf(new Set(this.done), checkpoint) };
    return this.cached.snapshot;
  }
}

/** The body of a commit that also holds subgraphs whose snapshot could not stand alone. */
function carriedNote(carried: readonly PlannedSubgraph[]): string {
  const names = carried.map((s) => `${s.name} (${s.id})`).join(", ");
  return `Also holds ${names}: ${carried.length === 1 ? "its" : "their"} tests fail without this subgraph's code, so ${carried.length === 1 ? "it was" : "they were"} not committed alone.`;
}
