import { createHash } from "node:crypto";
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { RpgForgeError } from "../errors.js";
import { redactDeep, secretRedactor } from "../redact.js";
import { writeFileAtomic } from "../workspace/atomic-write.js";
import {
  CheckpointSchema,
  checkpointText,
  parseCheckpoint,
  writeCheckpointText,
  type Checkpoint,
  type CheckpointEntry,
} from "./checkpoint.js";
import { CHECKPOINT_PATH, JOURNAL_PATH } from "./output-paths.js";
import { oneAtATime } from "./one-at-a-time.js";

/**
 * The checkpoint as a compacted file plus an append-only journal of what changed since
 * (decision 0002's addendum). Rewriting the whole file after every node made a run's writes
 * grow with the square of its size; a journal line holds only the entries that changed.
 *
 * The journal's first line names the file it extends by the SHA-256 of the file's text, so a
 * crash between writing a compacted file and starting its new journal leaves a journal that
 * no longer matches, and is ignored, instead of replaying older entries over newer ones. A
 * journal line is appended whole in one write; a crash mid-write leaves a torn last line,
 * which is dropped: at most the nodes in flight are lost, as before.
 */
export class CheckpointStore {
  #journalBytes = 0;
  #snapshotBytes = 0;
  /** Writes happen one at a time, in the order asked: a line never lands in a journal a compaction replaced. */
  readonly #serially = oneAtATime();
  /** The journal's file descriptor, opened once per journal. */
  #fd: number | undefined;
  readonly #redact = secretRedactor();

  constructor(
    readonly path: string,
    readonly journalPath: string = journalPathFor(path),
  ) {}

  /** The checkpoint the file and its journal hold, or undefined when there is no file. */
  async read(): Promise<Checkpoint | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const checkpoint = parseCheckpoint(text, this.path);
    const journal = await readFile(this.journalPath, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (journal === undefined) return checkpoint;
    const lines = journal.split("\n");
    const header = parseLine(lines[0]!) as { base?: unknown } | undefined;
    if (header?.base !== sha256(text)) return checkpoint;
    // A journal that does not end in a line break ends in a line whose write did not finish.
    const torn = journal.endsWith("\n") ? -1 : lines.length - 1;
    for (let i = 1; i < lines.length; i++) {
      if (lines[i] === "") continue;
      const change = parseLine(lines[i]!) as JournalLine | undefined;
      if (change === undefined) {
        if (i === torn) break;
        throw corrupt(this.journalPath, `line ${i + 1} is not a journal entry`);
      }
      apply(checkpoint, change);
    }
    const checked = CheckpointSchema.safeParse(checkpoint);
    if (!checked.success) throw corrupt(this.journalPath, checked.error.issues[0]!.message);
    return checked.data;
  }

  /** Writes the whole checkpoint and starts an empty journal after it. */
  compact(checkpoint: Checkpoint): Promise<void> {
    // The text is taken now, at the moment of the call, like a journal line's.
    const text = checkpointText(checkpoint);
    return this.#serially(() => this.#compactText(text));
  }

  async #compactText(text: string): Promise<void> {
    await writeCheckpointText(this.path, text);
    // The open journal is the one being replaced: later lines go to the new one.
    this.#closeJournal();
    await writeFileAtomic(this.journalPath, `${JSON.stringify({ base: sha256(text) })}\n`);
    this.#snapshotBytes = Buffer.byteLength(text);
    this.#journalBytes = 0;
  }

  /**
   * Appends the entries of `ids` and the checkpoint's own fields as one line; once the journal
   * outgrows the file it extends, compacts, so that reading stays cheap and every write is paid
   * for at most twice.
   */
  record(checkpoint: Checkpoint, ids: Iterable<string>, subgraphs: Iterable<string> = []): Promise<void> {
    const nodes: Record<string, CheckpointEntry> = {};
    for (const id of ids) if (checkpoint.nodes[id]) nodes[id] = checkpoint.nodes[id];
    // Like nodes, a subgraph's integration record is journaled when it changes, not on every line.
    const integration: NonNullable<Checkpoint["integration"]> = {};
    for (const id of subgraphs) if (checkpoint.integration?.[id]) integration[id] = checkpoint.integration[id];
    const { nodes: _all, pending_writes, integration: _records, ...top } = checkpoint;
    const change: JournalLine = { top: { ...top, pending_writes: pending_writes ?? null }, nodes };
    if (Object.keys(integration).length > 0) change.integration = integration;
    const line = `${this.#redactedJson(change)}\n`;
    return this.#serially(async () => {
      await this.#append(line);
      if (this.#journalBytes > Math.max(this.#snapshotBytes, 64 * 1024)) await this.#compactText(checkpointText(checkpoint));
    });
  }

  /** Closes the journal; the next record opens it again. */
  close(): Promise<void> {
    return this.#serially(async () => this.#closeJournal());
  }

  #closeJournal(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /**
   * The change as JSON without secrets: the text is redacted at once (every form of a secret,
   * its JSON-escaped one included, is caught in it), which costs a tenth of walking every
   * string; a pattern that matched across strings and broke the JSON falls back to the walk.
   */
  #redactedJson(change: object): string {
    const raw = JSON.stringify(change);
    const text = this.#redact(raw);
    if (text === raw || parseLine(text) !== undefined) return text;
    return JSON.stringify(redactDeep(change));
  }

  async #append(line: string): Promise<void> {
    try {
      // Opened once per journal; O_NOFOLLOW: never written through a link planted in its place. A line
      // is a few hundred bytes into the page cache: written synchronously, it costs a tenth of a
      // round trip through libuv's thread pool, and it goes in one write.
      this.#fd ??= openSync(this.journalPath, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
      writeSync(this.#fd, line);
    } catch (error) {
      throw new RpgForgeError(
        "CHECKPOINT_WRITE_FAILED",
        `cannot append to the checkpoint's journal: ${(error as Error).message}`,
        { file: this.journalPath },
        "check that the output directory is writable and the disk has room",
        { cause: error },
      );
    }
    this.#journalBytes += Buffer.byteLength(line);
  }
}

/** The journal of a checkpoint: rpg-forge's own .rpg-forge/ beside an output's docs/, else a file beside it. */
export function journalPathFor(checkpointPath: string): string {
  const normalized = checkpointPath.replace(/\\/g, "/");
  if (normalized.endsWith(`/${CHECKPOINT_PATH}`)) return join(dirname(dirname(checkpointPath)), JOURNAL_PATH);
  return `${checkpointPath}.journal`;
}

interface JournalLine {
  top: Omit<Checkpoint, "nodes" | "pending_writes" | "integration"> & { pending_writes: string[] | null };
  nodes: Record<string, CheckpointEntry>;
  integration?: NonNullable<Checkpoint["integration"]>;
}

function apply(checkpoint: Checkpoint, change: JournalLine): void {
  const { pending_writes, ...top } = change.top;
  Object.assign(checkpoint, top);
  if (pending_writes === null) delete checkpoint.pending_writes;
  else checkpoint.pending_writes = pending_writes;
  Object.assign(checkpoint.nodes, change.nodes);
  if (change.integration) checkpoint.integration = { ...checkpoint.integration, ...change.integration };
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function corrupt(path: string, why: string): RpgForgeError {
  return new RpgForgeError(
    "CHECKPOINT_CORRUPT",
    `the checkpoint's journal is corrupt: ${why}`,
    { file: path },
    "pass --fresh to start again; the old checkpoint is kept beside it as <name>.previous-<time>",
  );
}
