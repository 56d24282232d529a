import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync, version } from "esbuild";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * In the repository's node_modules, as vite's and other tools' caches are: the system's temp folder may be shared with
 * other users, and a folder planted there under the name to come would be run by the tests.
 */
const CACHE = join(ROOT, "node_modules", ".cache", "rpg-forge-programs");

/** What the tests start as programs of their own reaches only these folders' TypeScript. */
const SOURCES = ["src", "tests/helpers", "tests/sandbox"];

let built: string | undefined;

/**
 * A TypeScript file of this repository (the CLI's `src/cli/index.ts`, a helper such as `tests/helpers/slow-run.ts`) as
 * the JavaScript file `node` runs, for tests that start it as a process of its own. The sources are compiled file by
 * file, as `npm run build` compiles the CLI for a user, once for each state of them (CACHE). Started
 * through tsx instead, every process looked up and compiled each of its 500 modules through tsx's loader: 2.2 s of CPU
 * a start, 3.5 s for the first, against 0.9 s (issue 16).
 */
export function nodeProgram(entry: string): string {
  built ??= build();
  return join(built, entry.replace(/\.ts$/, ".js"));
}

/** The node arguments that run `entry` (see nodeProgram), then `args`. */
export function nodeProgramArgs(entry: string, ...args: string[]): string[] {
  return [nodeProgram(entry), ...args];
}

function build(): string {
  const files = SOURCES.flatMap((dir) => typeScriptIn(join(ROOT, dir))).sort();
  const hash = createHash("sha256").update(`esbuild ${version}\0`);
  for (const file of [...files, join(ROOT, "package.json"), join(ROOT, "tsconfig.json")])
    hash.update(relative(ROOT, file)).update("\0").update(readFileSync(file)).update("\0");
  const target = join(CACHE, hash.digest("hex").slice(0, 16));
  if (existsSync(join(target, "package.json"))) return target;
  mkdirSync(CACHE, { recursive: true });
  forgetOthers();
  // Made aside and renamed into place whole: another worker may be making the same one, and a half-made one is never used.
  const making = mkdtempSync(`${target}.making-`);
  try {
    buildSync({ entryPoints: files, outdir: making, outbase: ROOT, format: "esm", platform: "node", target: "node20", logLevel: "error" });
    // What the CLI reads of its package (its version), where src/cli/main.ts finds it; packages resolve up the folders,
    // to the repository's node_modules.
    cpSync(join(ROOT, "package.json"), join(making, "package.json"));
    renameSync(making, target);
  } catch (error) {
    rmSync(making, { recursive: true, force: true });
    if (!existsSync(join(target, "package.json"))) throw error;
  }
  return target;
}

/** Compiled states of the sources a day old or more (and what a killed build left): the sources have moved on. */
function forgetOthers(): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    if ((statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < dayAgo) rmSync(path, { recursive: true, force: true });
  }
}

function typeScriptIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}
