import { closeSync, constants, lstatSync, mkdirSync, openSync, writeFileSync, type Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { RpgForgeError } from "../errors.js";

/*
 * rpg-forge's own files in the output (the checkpoint, the report, the artifacts) are
 * written by path. A link on that path, committed in the repository or left by code
 * that ran outside bwrap, would put them (and whatever they quote) somewhere else:
 * over a file of the user's, or into a folder that is published. These helpers look at
 * each part of the path first and refuse a link. Node has no openat(), so a link made
 * between the look and the write still wins; only code outside bwrap could make one,
 * and that code can write anywhere by itself.
 *
 * mkdirNoLinks and writeFileNoFollow make their system calls synchronously: each is a few
 * microseconds on a local disk, where a trip through libuv's thread pool cost a fraction of a
 * millisecond, and a node saves a dozen artifacts of ten calls each (issue 16). They stay
 * async to their callers.
 */

/** The error for a link where rpg-forge writes. */
export function linkRefused(path: string): RpgForgeError {
  return new RpgForgeError(
    "OUTPUT_SYMLINK",
    `${path} is a symbolic link, and rpg-forge never writes through one`,
    { file: path },
    "remove the link: docs/ and .rpg-forge/ in the output hold rpg-forge's own files",
  );
}

const partsOf = (rel: string): string[] => rel.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");

/** Throws OUTPUT_SYMLINK when a folder or file on `rel`'s way from `root` (root itself aside) is a symbolic link; missing parts are fine. */
export async function refuseLinks(root: string, rel: string): Promise<void> {
  let path = root;
  for (const part of partsOf(rel)) {
    path = join(path, part);
    const info = await lstat(path).catch(() => undefined);
    if (!info) return;
    if (info.isSymbolicLink()) throw linkRefused(path);
  }
}

/** Makes the folder `rel` under `root` one part at a time, refusing a link on the way; returns its path. */
export async function mkdirNoLinks(root: string, rel: string): Promise<string> {
  mkdirSync(root, { recursive: true });
  let path = root;
  for (const part of partsOf(rel)) {
    path = join(path, part);
    let info: Stats | undefined = lstatSync(path, { throwIfNoEntry: false });
    if (!info) {
      try {
        mkdirSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      info = lstatSync(path);
    }
    if (info.isSymbolicLink()) throw linkRefused(path);
    if (!info.isDirectory()) throw new Error(`ENOTDIR: not a directory, mkdir '${path}'`);
  }
  return path;
}

/** Writes a file, refusing (OUTPUT_SYMLINK) a link in its place instead of writing where it points. */
export async function writeFileNoFollow(path: string, content: string | Uint8Array): Promise<void> {
  let fd;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw linkRefused(path);
    throw error;
  }
  try {
    writeFileSync(fd, content);
  } finally {
    closeSync(fd);
  }
}
