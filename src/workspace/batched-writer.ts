import type { PackageFiles } from "./package-files.js";
import type { StagedWrite } from "./atomic-write.js";

/** The PRD's batch: files are written after every this many passed nodes (and after each subgraph). */
export const DEFAULT_BATCH_SIZE = 5;

export interface BatchedWriterOptions {
  /** The work tree the TDD loop runs in: the newest content of every file. */
  work: PackageFiles;
  /** The output: only ever receives whole batches of passed nodes' files. */
  output: PackageFiles;
  /** The files a node owns (its module and its tests), relative to both roots. */
  filesOf: (nodeId: string) => readonly string[];
  /** The nodes a node imports from, so that a node whose dependency could not be written is not written either. */
  dependsOn: (nodeId: string) => Iterable<string>;
  batchSize?: number;
}

export interface FlushResult {
  /** Nodes whose files are all in the output now, in the order they were staged. */
  written: string[];
  /** Files written (unchanged files are not rewritten). */
  files: string[];
  /** Nodes whose files could not be written, or that share a file with one that could not. */
  failed: { nodeId: string; file: string; reason: string }[];
  /** Nodes left unwritten because a node they depend on could not be written. */
  blocked: string[];
}

/**
 * Buffers passed nodes' files in the work tree and writes them to the output in
 * batches, each with two phases: every file's new bytes are first written and synced
 * beside its target (this is where a full disk or a permission problem shows), and
 * only then renamed into place. A node whose file could not be prepared is not
 * written, nor is any node of the batch that imports it or shares a file with it,
 * and their files in the work tree go back to what the output holds. So the output
 * only ever holds passed nodes whose imports are there too, and never a part of a file.
 */
export class BatchedWriter {
  private readonly staged: string[] = [];
  readonly batchSize: number;

  constructor(private readonly options: BatchedWriterOptions) {
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  }

  /** Passed nodes whose files are not in the output yet, in the order they passed. */
  get pending(): readonly string[] {
    return this.staged;
  }

  /** Adds a passed node to the batch; true when the batch is full and should be flushed. */
  stage(nodeId: string): boolean {
    if (!this.staged.includes(nodeId)) this.staged.push(nodeId);
    return this.staged.length >= this.batchSize;
  }

  async flush(): Promise<FlushResult> {
    const { work, output, filesOf, dependsOn } = this.options;
    const nodes = this.staged.splice(0);
    const owners = new Map<string, string[]>();
    for (const id of nodes) for (const file of filesOf(id)) owners.set(file, [...(owners.get(file) ?? []), id]);

    const prepared = new Map<string, StagedWrite>();
    const previous = new Map<string, string | undefined>();
    const unwritable = new Map<string, string>();
    for (const file of owners.keys()) {
      try {
        const content = await work.read(file);
        // An output file that cannot be read is one to replace (the write will say why it cannot).
        const before = await output.read(file).catch(() => undefined);
        if (content === undefined || content === before) continue;
        previous.set(file, before);
        prepared.set(file, await output.stage(file, content));
      } catch (error) {
        unwritable.set(file, (error as Error).message);
      }
    }

    const failed = new Map<string, { nodeId: string; file: string; reason: string }>();
    for (const [file, reason] of unwritable) {
      for (const nodeId of owners.get(file)!)
        if (!failed.has(nodeId)) failed.set(nodeId, { nodeId, file, reason: `cannot write ${file}: ${reason}` });
    }
    const blocked = new Set<string>();
    const bad = (id: string): boolean => failed.has(id) || blocked.has(id);
    // A node is tainted by a failed dependency or by a file it shares with a tainted node,
    // and either can taint more: repeat until nothing changes.
    const spread = (): void => {
      for (let changed = true; changed;) {
        changed = false;
        for (const id of nodes) {
          if (bad(id)) continue;
          if ([...dependsOn(id)].some(bad)) {
            blocked.add(id);
            changed = true;
            continue;
          }
          for (const file of filesOf(id)) {
            const culprit = owners.get(file)!.find((other) => other !== id && bad(other));
            if (culprit === undefined) continue;
            failed.set(id, { nodeId: id, file, reason: `not written: it shares ${file} with ${culprit}, which could not be written` });
            changed = true;
            break;
          }
        }
      }
    };
    const taintedFiles = (): Set<string> => new Set(nodes.filter(bad).flatMap((id) => [...filesOf(id)]));
    spread();

    // Renames in staging order, which is dependency order, so that a failure here still
    // keeps the nodes after it that import the failed one (or share its file) out.
    const files: string[] = [];
    let tainted = taintedFiles();
    for (const [file, write] of prepared) {
      if (tainted.has(file)) {
        await write.discard();
        continue;
      }
      try {
        await write.commit();
        files.push(file);
      } catch (error) {
        // Rare (a folder where the file should be): the bytes fitted but the rename was refused.
        for (const nodeId of owners.get(file)!)
          failed.set(nodeId, { nodeId, file, reason: `cannot write ${file}: ${(error as Error).message}` });
        spread();
        tainted = taintedFiles();
      }
    }
    // A rename refused after others of the same nodes went through: those go back as they were.
    for (const file of files.filter((f) => tainted.has(f))) {
      const before = previous.get(file);
      await (before === undefined ? output.remove(file) : output.write(file, before)).catch(() => undefined);
    }
    // The work tree goes back to the output's content, so the next node builds on what is really there.
    for (const file of tainted) {
      const kept = await output.read(file).catch(() => undefined);
      if (kept === undefined) await work.remove(file);
      else await work.write(file, kept);
    }
    return {
      written: nodes.filter((id) => !bad(id)),
      files: files.filter((f) => !tainted.has(f)),
      failed: [...failed.values()],
      blocked: nodes.filter((id) => blocked.has(id)),
    };
  }
}
