import { findCycles } from "../rpg/cycles.js";
import { compareIds } from "../rpg/ids.js";
import { moduleOf } from "./layout.js";
import { askImportScript, type RuntimeImport } from "./python-imports.js";

/** The organized source; `reason` says why it was left unchanged when it could not be organized. */
export interface OrganizedImports {
  source: string;
  changed: boolean;
  reason?: string;
}

/**
 * Rewrites the leading import block of a module in PEP 8 order: __future__, standard
 * library, third party, local, one blank line between groups, then two blank lines
 * before a def or class (one before other code). Within a group statements sort by
 * module name, case-insensitively (`import x` before `from x import y` on a tie);
 * relative imports come last in the local group. Comment lines in the block move with
 * the import below them, so none is lost; a trailing comment stays with its line,
 * except on a line holding several statements (`import a; import b  # c`), which is
 * split and loses the comment. Extra lines are added unless every name they bind is
 * already imported at top level, or is imported inside the functions that use it and read
 * nowhere else as the module's name: an import the code put in a function (often to avoid
 * a cycle) stays there, and is not repeated at the top. CRLF line ends become LF. A result
 * that would not parse is not returned. The block is scanned, rendered and parsed by
 * `organize` in ./python-imports.ts, in one call; the code application runs the same function.
 */
export async function organizeImports(
  python: string,
  source: string,
  localPackages: readonly string[],
  extra: readonly string[] = [],
): Promise<OrganizedImports> {
  return askImportScript(python, { mode: "organize", source, localPackages, extra });
}

/** The import line a dependent needs for a dependency in another module: `from <module> import <name>`; none when both are in the same module. */
export function importFor(dependency: { name: string; file_path: string }, dependent: { file_path: string }): string | undefined {
  const module = moduleOf(dependency.file_path);
  // Importing from one's own module is a circular import of the module by itself.
  return module === moduleOf(dependent.file_path) ? undefined : `from ${module} import ${dependency.name}`;
}

/**
 * Which candidates the code uses: names read as identifiers (ast Name nodes) where they
 * mean the module's name, so a name in a string, a comment, an attribute (`obj.mean`) or
 * a keyword argument does not count, nor one the function binds itself (a parameter, an
 * assignment, an import in its body, as Python's scopes have it). Annotations, defaults
 * and decorators count, as the module evaluates them. Code that does not parse falls
 * back to the tokenizer.
 */
export async function usedNames(python: string, code: string, candidates: readonly string[]): Promise<string[]> {
  if (candidates.length === 0) return [];
  const found = new Set((await askImportScript(python, { mode: "names", code })).names);
  return [...new Set(candidates)].filter((name) => found.has(name));
}

/** The module an import line is written in. */
export interface Importer {
  module: string;
  /** Whether it is a package's __init__.py: then `from <module> import x` may load its submodule x. */
  isPackage: boolean;
  /** Its source: the names it defines at top level (imports aside) are its own. */
  source: string;
  /** Names it is about to define besides (the node being written). */
  names?: readonly string[];
}

/**
 * The import lines without the names they take from the importer's own module (`from
 * <module> import x`, or a relative import that comes to it): a name the module defines
 * needs no import, and importing it is an import of the module by itself. A plain module
 * has no submodules, so every such name goes; a package's __init__.py keeps the names it
 * does not define, which are its submodules (`from pkg import sub`, `from . import sub`).
 * A line that loses some of its names is written anew (without its comment), the others
 * are kept as they are, and so is a line that does not parse.
 */
export async function withoutSelfImports(python: string, lines: readonly string[], importer: Importer): Promise<string[]> {
  if (lines.length === 0) return [];
  const { module, isPackage, source, names = [] } = importer;
  return (await askImportScript(python, { mode: "own", lines, module, isPackage, source, names })).lines;
}

/** One import cycle between modules of the package, for the report. */
export interface ImportCycle {
  /** Module names in import order, the first repeated at the end (as findCycles names RPG cycles). */
  cycle: string[];
  suggestion: string;
}

/**
 * The cycles of the package's module-level import graph: imports that run when a
 * module loads (top level, and inside top-level if/try/with), not those inside
 * functions or under `if TYPE_CHECKING:`. A module that does not parse has no edges.
 * A module is taken for a package (for relative imports) when `packages` names it (its
 * file is an __init__.py) or another module's name starts with its name and a dot. A
 * package that imports from itself a name it does not define loads its submodule: that
 * is no import of the package by itself, even when the submodule is not among `modules`.
 */
export async function importCycles(
  python: string,
  modules: ReadonlyMap<string, string>,
  packages: ReadonlySet<string> = new Set(),
): Promise<ImportCycle[]> {
  if (modules.size === 0) return [];
  const reply = await askImportScript(python, { mode: "graph", modules: Object.fromEntries(modules) });
  const known = new Set(modules.keys());
  const parents = new Set([...known].flatMap((m) => m.split(".").map((_, i, parts) => parts.slice(0, i).join("."))));
  const edges = new Map<string, Map<string, Set<string>>>();
  for (const [module, imports] of Object.entries(reply.modules)) {
    const targets = new Map<string, Set<string>>();
    const importer = { module, isPackage: packages.has(module) || parents.has(module), defined: new Set(reply.defined[module]) };
    for (const found of imports ?? []) {
      for (const [target, name] of resolveImport(importer, found, known)) {
        targets.set(target, (targets.get(target) ?? new Set()).add(name));
      }
    }
    edges.set(module, targets);
  }
  const graph = new Map([...edges].map(([module, targets]) => [module, [...targets.keys()].sort(compareIds)]));
  return findCycles(graph).map((cycle) => ({ cycle, suggestion: suggestionFor(cycle, edges) }));
}

/**
 * The known modules an import loads, each with the name it takes ("" for `import m`).
 * `from p import x` loads the module p.x when there is one, else takes x from p; in the
 * package p itself, a name p does not define is a submodule, so it takes nothing from p.
 */
function resolveImport(
  importer: { module: string; isPackage: boolean; defined: ReadonlySet<string> },
  found: RuntimeImport,
  known: ReadonlySet<string>,
): [string, string][] {
  const base = absoluteModule(importer.module, importer.isPackage, found);
  if (base === undefined) return [];
  if (found.names === null) return known.has(base) ? [[base, ""]] : [];
  const resolved: [string, string][] = [];
  for (const name of found.names) {
    const submodule = base === "" ? name : `${base}.${name}`;
    if (known.has(submodule)) resolved.push([submodule, name]);
    else if (base === importer.module && importer.isPackage && !importer.defined.has(name)) continue;
    else if (known.has(base)) resolved.push([base, name]);
  }
  return resolved;
}

/** The absolute module of a (possibly relative) import; undefined when it climbs above the top-level package. */
function absoluteModule(importer: string, isPackage: boolean, found: RuntimeImport): string | undefined {
  if (found.level === 0) return found.module;
  // `.` is the importer's package: the module itself when it is a package, else its parent; each further dot goes up one.
  const parts = importer.split(".");
  const pkg = isPackage ? parts : parts.slice(0, -1);
  if (found.level - 1 >= pkg.length) return undefined;
  const anchor = pkg.slice(0, pkg.length - (found.level - 1));
  return [...anchor, ...(found.module === "" ? [] : found.module.split("."))].join(".");
}

function suggestionFor(cycle: readonly string[], edges: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>): string {
  const steps = cycle.slice(0, -1).map((from, i) => {
    const to = cycle[i + 1]!;
    const names = [...(edges.get(from)?.get(to) ?? [])].filter((name) => name !== "").sort();
    return `${from} imports ${to}${names.length > 0 ? ` (${names.join(", ")})` : ""}`;
  });
  if (cycle.length === 2) return `${steps[0]}, i.e. itself: drop the import, since those names are defined in the module.`;
  return `${steps.join("; ")}. Move what they share into a module that imports neither, or import inside the function that needs it.`;
}

/**
 * Missing names from pytest output: names from NameError and from `ImportError: cannot
 * import name` (unless a circular import is why), and modules from ModuleNotFoundError;
 * each sorted, without repeats.
 * Python quotes them with repr, so a name never contains a quote.
 */
export function missingNames(pytestOutput: string): { names: string[]; modules: string[] } {
  const all = (...patterns: RegExp[]): string[] =>
    [...new Set(patterns.flatMap((pattern) => [...pytestOutput.matchAll(pattern)].map((m) => m[1]!)))].sort();
  return {
    // A name a circular import could not give is no missing import: another import of it, at the top, would only deepen the cycle.
    names: all(
      /NameError: name '([^'\s]+)' is not defined/g,
      /ImportError: cannot import name '([^'\s]+)'(?! from partially initialized module)/g,
    ),
    modules: all(/ModuleNotFoundError: No module named '([^'\s]+)'/g),
  };
}

// One probe per interpreter: the set does not change while the process runs.
const stdlibCache = new Map<string, Promise<ReadonlySet<string>>>();

function stdlibNames(python: string): Promise<ReadonlySet<string>> {
  let names = stdlibCache.get(python);
  if (!names) {
    names = askImportScript(python, { mode: "stdlib" }).then((reply) => new Set(reply.names));
    stdlibCache.set(python, names);
    names.catch(() => stdlibCache.delete(python)); // a failed probe is tried again next time
  }
  return names;
}

/** Whether a module's top-level name is in the standard library of the given python (sys.stdlib_module_names), cached per interpreter. */
export async function isStdlib(python: string, module: string): Promise<boolean> {
  return (await stdlibNames(python)).has(module.split(".")[0]!);
}
