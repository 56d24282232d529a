import { readFile, rename, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { RpgForgeError } from "../errors.js";
import { checkpointText, parseCheckpoint, type Checkpoint } from "../record/checkpoint.js";
import { writeFileAtomic } from "../workspace/atomic-write.js";
import { refuseLinks } from "../workspace/no-links.js";

/*
 * The checkpoint's files (decision 0002): its shape is src/record/checkpoint.ts, re-exported here
 * for the engine's callers.
 */
export * from "../record/checkpoint.js";

/** Reads a checkpoint; `undefined` when there is none. A file that is there but unreadable as a checkpoint throws CHECKPOINT_CORRUPT. */
export async function readCheckpoint(path: string): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    const hint = "check the file's permissions and that every folder on its path is a directory";
    throw new RpgForgeError("CHECKPOINT_UNREADABLE", `cannot read the checkpoint: ${(error as Error).message}`, { file: path }, hint, {
      cause: error,
    });
  }
  return parseCheckpoint(text, path);
}

/** The error for starting a new run where an earlier one left its checkpoint. */
export function checkpointExistsError(path: string): RpgForgeError {
  return new RpgForgeError(
    "CHECKPOINT_EXISTS",
    "a checkpoint from an earlier run exists",
    { file: path },
    "pass --resume to continue it, or --fresh to set it aside and start again",
  );
}

/**
 * Writes the checkpoint atomically (temp file, fsync, rename): a crash leaves the
 * previous checkpoint or this one. It is committed and pushed, so it is written without
 * secrets, and never through a link in its folder's or its own place (OUTPUT_SYMLINK).
 */
export async function writeCheckpoint(path: string, checkpoint: Checkpoint): Promise<void> {
  await writeCheckpointText(path, checkpointText(checkpoint));
}

/** writeCheckpoint of a text checkpointText made (the journal names the file it extends by this text's hash). */
export async function writeCheckpointText(path: string, text: string): Promise<void> {
  const folder = dirname(path);
  await refuseLinks(dirname(folder), join(basename(folder), basename(path)));
  try {
    await writeFileAtomic(path, text);
  } catch (error) {
    throw new RpgForgeError(
      "CHECKPOINT_WRITE_FAILED",
      `cannot write the checkpoint: ${(error as Error).message}`,
      { file: path },
      "check that the output directory is writable and the disk has room",
      { cause: error },
    );
  }
}

/** Moves a checkpoint out of the way instead of deleting it, so that starting fresh loses nothing. Returns where it went. */
export async function setCheckpointAside(path: string, now: Date): Promise<string | undefined> {
  try {
    await stat(path);
  } catch {
    return undefined;
  }
  const aside = `${path}.previous-${now.toISOString().replace(/[:.]/g, "-")}`;
  await rename(path, aside);
  return aside;
}
