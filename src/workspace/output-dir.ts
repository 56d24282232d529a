import { access, constants, mkdir, readdir, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { RpgForgeError } from "../errors.js";
import { writeFileAtomic } from "./atomic-write.js";
import { mkdirNoLinks, refuseLinks } from "./no-links.js";
import type { PackageFiles } from "./package-files.js";

/**
 * Makes sure the output is a writable directory before any work, so a bad --out costs
 * nothing. `ownPaths` are the files and folders rpg-forge writes by path (checkpoint,
 * report, artifacts): a symbolic link anywhere on their way is refused (OUTPUT_SYMLINK)
 * before anything is written, since it would carry those writes out of the output.
 */
export async function prepareOutputDir(path: string, ownPaths: readonly string[] = []): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info && !info.isDirectory()) {
    throw new RpgForgeError(
      "OUTPUT_NOT_DIRECTORY",
      `the output ${path} exists and is not a directory`,
      { file: path },
      "pass --out a directory (it is created when missing)",
    );
  }
  if (info) for (const own of ownPaths) await refuseLinks(path, own);
  try {
    await mkdir(path, { recursive: true });
    await access(path, constants.W_OK);
  } catch (error) {
    throw new RpgForgeError(
      "OUTPUT_NOT_WRITABLE",
      `cannot write to the output ${path}: ${(error as Error).message}`,
      { file: path },
      "choose a directory you can write to",
      { cause: error },
    );
  }
}

/**
 * The minimum for the generated tests to import the package: pytest.ini with the src
 * layout on the path, and an __init__.py in each package. Existing files are left
 * alone; the assembly step writes the full versions.
 */
export async function scaffoldPackage(files: PackageFiles, packageDirs: readonly string[]): Promise<void> {
  if ((await files.read("pytest.ini")) === undefined) {
    await files.write("pytest.ini", "[pytest]\npythonpath = src .\ntestpaths = tests\naddopts = --import-mode=importlib\n");
  }
  for (const dir of packageDirs) {
    const init = `${dir}/__init__.py`;
    if ((await files.read(init)) === undefined) await files.write(init, "");
  }
}

/**
 * Writes a file that is ours (reports), outside the per-node snapshots; atomically, like
 * every file we write, and never through a link on its way (OUTPUT_SYMLINK).
 */
export async function writeOutputFile(root: string, rel: string, content: string): Promise<void> {
  await mkdirNoLinks(root, dirname(rel));
  await refuseLinks(root, rel);
  await writeFileAtomic(join(root, rel), content);
}

/** Every file under the output (POSIX paths relative to it), leaving out .git/ and rpg-forge's own .rpg-forge/. */
export async function existingFiles(outDir: string): Promise<Set<string>> {
  const entries = await readdir(outDir, { recursive: true, withFileTypes: true });
  const files = new Set<string>();
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const rel = relative(outDir, join(entry.parentPath, entry.name)).split(sep).join("/");
    if (rel.startsWith(".git/") || rel.startsWith(".rpg-forge/")) continue;
    files.add(rel);
  }
  return files;
}
