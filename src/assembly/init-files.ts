import { symbolKindOf } from "../rpg/symbol-kind.js";
import { byCodeUnit } from "../rpg/code-unit-order.js";
import { normalizePath } from "../rpg/paths.js";
import type { Rpg, RpgNode } from "../rpg/schema.js";
import { packageDocstrings, pythonDocstring } from "./docstrings.js";
import { moduleOf } from "./layout.js";
import { MARKER } from "./owned-file.js";

/** What one package's __init__.py exports, and from where. */
export interface PackageApi {
  /** The package's directory, e.g. src/statkit. */
  dir: string;
  module: string;
  docstring: string;
  /** `__version__`, in top-level packages only. */
  version: string | undefined;
  /** `from <from> import <names>`, sorted by module, names sorted. */
  imports: { from: string; names: string[] }[];
  /** Everything exported, sorted: `__all__`. */
  all: string[];
  /** Passed leaves live in the __init__.py itself: it is a generated module, and its code is kept. */
  holdsCode: boolean;
}

export interface ApiOptions {
  /** Whether a package re-exports its subpackages' APIs (metadata.reexport_subpackages, default true). */
  reexport: boolean;
  version: string;
  /** The top-level package's docstring when no package composite gives one. */
  description: string;
}

/** metadata.reexport_subpackages: true unless the RPG says false; any other value is a warning and the default. */
export function reexportOption(rpg: Pick<Rpg, "metadata">): { reexport: boolean; warnings: string[] } {
  const value = rpg.metadata.reexport_subpackages;
  if (value === undefined || typeof value === "boolean") return { reexport: value !== false, warnings: [] };
  return { reexport: true, warnings: [`the RPG's metadata "reexport_subpackages" is not true or false; subpackages are re-exported`] };
}

/**
 * The API of each package: the public symbols of the passed leaves in its own modules
 * and, unless the RPG says otherwise, everything its direct subpackages export, so the
 * top-level package offers the whole planned API (`statkit.mean`). A name that reaches a
 * package from two different definitions is exported there by neither, with a warning:
 * which one `from pkg import name` gives must not depend on import order.
 */
export function packageApis(
  rpg: Pick<Rpg, "nodes">,
  passed: readonly RpgNode[],
  packageDirs: readonly string[],
  options: ApiOptions,
): { apis: PackageApi[]; warnings: string[] } {
  const dirs = new Set(packageDirs);
  const docstrings = packageDocstrings(rpg);
  const warnings: string[] = [];
  const apis = new Map<string, PackageApi>();
  /** Where each exported name of a package is defined (module.name), to tell a clash from one symbol seen twice. */
  const origins = new Map<string, Map<string, string>>();
  // Deepest first, so a subpackage's API is known before its parent's.
  const ordered = [...packageDirs].sort((a, b) => b.split("/").length - a.split("/").length || byCodeUnit(a, b));
  for (const dir of ordered) {
    const module = moduleOf(`${dir}/__init__.py`);
    const found = new Map<string, { from: string; origin: string }[]>();
    const add = (name: string, from: string, origin: string): void => {
      const seen = found.get(name) ?? [];
      if (!seen.some((s) => s.origin === origin)) seen.push({ from, origin });
      found.set(name, seen);
    };
    let holdsCode = false;
    for (const node of passed) {
      if (node.node_type !== "leaf" || dirOf(node.file_path) !== dir) continue;
      const own = moduleOf(node.file_path);
      if (normalizePath(node.file_path).endsWith("/__init__.py")) holdsCode = true;
      // A method is its class's, not the module's.
      if (!node.name.startsWith("_") && symbolKindOf(node) !== "method") add(node.name, own, `${own}.${node.name}`);
    }
    if (options.reexport) {
      for (const child of packageDirs) {
        if (dirOf(child) === dir && apis.has(child)) {
          const childApi = apis.get(child)!;
          for (const name of childApi.all) add(name, childApi.module, origins.get(child)!.get(name)!);
        }
      }
    }
    const exported = new Map<string, string>();
    const from = new Map<string, string[]>();
    for (const [name, seen] of [...found].sort(([a], [b]) => byCodeUnit(a, b))) {
      if (seen.length > 1) {
        const where = seen.map((s) => s.origin).sort(byCodeUnit);
        warnings.push(`${dir}/__init__.py exports no "${name}": it is defined in both ${where.join(" and ")}; import it from its module`);
        continue;
      }
      exported.set(name, seen[0]!.origin);
      if (seen[0]!.from !== module) from.set(seen[0]!.from, [...(from.get(seen[0]!.from) ?? []), name]);
    }
    origins.set(dir, exported);
    const topLevel = !dirs.has(dirOf(dir));
    apis.set(dir, {
      dir,
      module,
      docstring: docstrings.get(dir) ?? (topLevel && options.description.trim() !== "" ? options.description : `The ${module} package.`),
      version: topLevel ? options.version : undefined,
      imports: [...from].sort(([a], [b]) => byCodeUnit(a, b)).map(([m, names]) => ({ from: m, names })),
      all: [...exported.keys()],
      holdsCode,
    });
  }
  return { apis: [...packageDirs].map((d) => apis.get(d)!), warnings };
}

/** The first line of a generated __init__.py; the marker makes it ours on the next run. */
export const INIT_HEADER = `# ${MARKER} from docs/rpg.json; edit the RPG and regenerate rather than this file.`;
/** Opens the part rpg-forge appends to an __init__.py that holds generated code; everything from it on is rewritten. */
export const API_BLOCK_HEADER = `# ${MARKER}: the package's API, from docs/rpg.json (rewritten on every assembly).`;

/** The __init__.py of a package that holds no code of its own: docstring, __all__, __version__, the imports (PEP 8 order). */
export function renderInitFile(api: PackageApi): string {
  const lines = [INIT_HEADER, pythonDocstring(api.docstring), ""];
  const dunders = dunderLines(api);
  if (dunders.length > 0) lines.push(...dunders, "");
  if (api.imports.length > 0) lines.push(...importLines(api, ""), "");
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}

/**
 * An __init__.py that holds generated code (the RPG placed leaves in it): the code as it
 * is, byte for byte, then the API block. An API block from an earlier assembly is cut
 * off first, so assembling twice gives the same file.
 */
export function renderInitWithCode(api: PackageApi, source: string): string {
  const code = stripApiBlock(source);
  const imports = importLines(api, "  # noqa: E402");
  const block = [API_BLOCK_HEADER, ...imports, ...dunderLines(api)];
  if (block.length === 1) return code;
  return `${code}${code === "" || code.endsWith("\n") ? "" : "\n"}\n\n${block.join("\n")}\n`;
}

/**
 * `source` without the API block an earlier assembly appended (and the blank lines before it).
 * The block holds no blank line, so it ends at the first one: code a resumed run added after it stays.
 */
export function stripApiBlock(source: string): string {
  const at = source.lastIndexOf(`\n\n\n${API_BLOCK_HEADER}\n`);
  if (at === -1) return source;
  const blank = source.indexOf("\n\n", at + 3);
  return source.slice(0, at + 1) + (blank === -1 ? "" : source.slice(blank + 1));
}

function dunderLines(api: PackageApi): string[] {
  const lines: string[] = [];
  if (api.all.length > 0) {
    const quoted = api.all.map((n) => JSON.stringify(n));
    const one = `__all__ = [${quoted.join(", ")}]`;
    lines.push(...(one.length <= 99 ? [one] : ["__all__ = [", ...quoted.map((q) => `    ${q},`), "]"]));
  }
  if (api.version !== undefined) lines.push(`__version__ = ${JSON.stringify(api.version)}`);
  return lines;
}

function importLines(api: PackageApi, suffix: string): string[] {
  return api.imports.map(({ from, names }) => {
    const one = `from ${from} import ${names.join(", ")}${suffix}`;
    return one.length <= 99 ? one : `from ${from} import (${suffix}\n${names.map((n) => `    ${n},`).join("\n")}\n)`;
  });
}

function dirOf(path: string): string {
  return normalizePath(path).split("/").slice(0, -1).join("/");
}
