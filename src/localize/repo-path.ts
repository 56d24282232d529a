import { lstat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { RpgForgeError } from "../errors.js";

/** rpg-forge's own state and git's: neither is code to look at, and .rpg-forge/ holds the prompts of every run. */
const HIDDEN_ROOTS = new Set([".git", ".rpg-forge"]);

/**
 * A path the code view may read: a `.py` file inside the repository, outside .git/ and .rpg-forge/, with no
 * symbolic link on its way. The path may come from a model's tool call, which is as untrusted as its code.
 * Returns the path relative to the repository (POSIX separators) and its absolute form; throws
 * LOCALIZE_PATH_REFUSED. A part that does not exist is fine here: the caller reports the file missing.
 */
export async function repoPath(repoDir: string, path: string): Promise<{ rel: string; abs: string }> {
  const root = resolve(repoDir);
  const abs = resolve(root, path);
  const rel = relative(root, abs);
  const refuse = (why: string): RpgForgeError =>
    new RpgForgeError(
      "LOCALIZE_PATH_REFUSED",
      `refused to read "${path}": ${why}`,
      { file: path },
      "name a .py file of the repository, relative to its root",
    );
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw refuse("it is outside the repository");
  const parts = rel.split(sep);
  if (HIDDEN_ROOTS.has(parts[0]!)) throw refuse(`${parts[0]}/ is not code of the package`);
  if (!/\.pyi?$/.test(rel)) throw refuse("view reads Python files (.py) only");
  let at = root;
  for (const part of parts) {
    at = join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (!info) break;
    if (info.isSymbolicLink()) throw refuse(`${relative(root, at).split(sep).join("/")} is a symbolic link`);
  }
  return { rel: parts.join("/"), abs };
}
