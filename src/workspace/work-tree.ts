import { PackageFiles } from "./package-files.js";
import { copyFile, lstat, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { RpgForgeError } from "../errors.js";

/** Where the TDD loop runs unless told otherwise, inside the output's ignored .rpg-forge/. */
export const defaultWorkTree = (outDir: string): string => join(outDir, ".rpg-forge", "work");

/** Proof that a folder is a work tree of ours, and so ours to empty; not part of the package. */
export const WORK_TREE_STAMP = ".rpg-forge-work-tree";
const STAMP = WORK_TREE_STAMP;

/**
 * Never copied: history and workflows (nothing tests could write to take effect
 * elsewhere), our own state, caches and environments that tests do not need.
 */
const NOT_COPIED = new Set([
  ".git",
  ".github",
  ".rpg-forge",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".tox",
  ".venv",
  "venv",
  "node_modules",
]);

/**
 * Makes the work tree the TDD loop runs in: a fresh copy of the output as it is on
 * disk. Generated code and pytest only ever touch this copy; the output receives
 * passed nodes' files in batches. A folder that is there already is emptied only if
 * it is one of ours (it carries our stamp), never a folder someone else made.
 */
export async function createWorkTree(outDir: string, workDir: string): Promise<void> {
  const out = resolve(outDir);
  const work = resolve(workDir);
  if (out === work || !relative(work, out).startsWith("..")) {
    throw new RpgForgeError("WORK_TREE_REFUSED", `the work tree ${work} would hold the output ${out}`, { file: work });
  }
  // A link on the way (a repository can commit `.rpg-forge` as one) would put the tree, and our rm, elsewhere.
  if (work.startsWith(`${out}${sep}`)) {
    let path = out;
    for (const part of relative(out, work).split(sep)) {
      path = join(path, part);
      const info = await lstat(path).catch(() => undefined);
      if (info && !info.isDirectory())
        throw new RpgForgeError(
          "WORK_TREE_REFUSED",
          `${path} is not a folder (a link or a file)`,
          { file: path },
          "remove it; .rpg-forge/ is rpg-forge's own",
        );
    }
  }
  const existing = await readdir(work).catch(() => undefined);
  if (existing !== undefined && existing.length > 0) {
    if (!existing.includes(STAMP)) {
      throw new RpgForgeError(
        "WORK_TREE_REFUSED",
        `the work tree ${work} exists and was not made by rpg-forge`,
        { file: work },
        "choose an empty or missing folder for the work tree",
      );
    }
    // Emptied, not removed: the folder stays the one a sandbox already mounted, so the next suite run here (a subgraph's
    // integration tests, a snapshot's suite) runs in the sandbox the last one started (a sandbox serves one folder, and
    // each start cost about a third of a second of CPU, for the one or two gates a subgraph runs here).
    await Promise.all(existing.map((name) => rm(join(work, name), { recursive: true, force: true })));
  }
  await mkdir(work, { recursive: true });
  await writeFile(join(work, STAMP), "rpg-forge runs the TDD loop here; it is rebuilt from the output on every run.\n");
  await copyTree(out, work, work);
}

/** Copies files and folders (not links, which generated code could aim anywhere), leaving out `skip` and NOT_COPIED. */
async function copyTree(from: string, to: string, skip: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (NOT_COPIED.has(entry.name) || source === skip) continue;
    if (entry.isDirectory()) {
      await mkdir(join(to, entry.name), { recursive: true });
      await copyTree(source, join(to, entry.name), skip);
    } else if (entry.isFile()) {
      await copyFile(source, join(to, entry.name));
    }
  }
}

/** Sets files of a work tree of ours as given (null removes one): a snapshot laid over a copy of the output. */
export async function layOver(workDir: string, files: ReadonlyMap<string, string | null>): Promise<void> {
  const tree = await PackageFiles.open(workDir);
  for (const [rel, content] of files) {
    if (content === null) await tree.remove(rel);
    else await tree.write(rel, content);
  }
}

/** Removes a work tree of ours once a run is over. */
export async function removeWorkTree(workDir: string): Promise<void> {
  const info = await stat(join(workDir, STAMP)).catch(() => undefined);
  if (info) await rm(workDir, { recursive: true, force: true });
}
