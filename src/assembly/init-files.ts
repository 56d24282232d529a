import { normalizePath } from "../rpg/paths.js";
import type { RpgNode } from "../rpg/schema.js";
import { moduleOf } from "./layout.js";
import { MARKER } from "./owned-file.js";

/**
 * The __init__.py of each package: the public symbols generated in its own modules,
 * imported absolutely and listed in __all__, so that `from pkg import name` and
 * `from pkg import *` work. Only passed nodes count: a failed node has no code.
 */
export function renderInitFiles(passed: readonly RpgNode[], packageDirs: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of packageDirs) {
    const symbols = passed
      .filter(
        (n) =>
          n.node_type === "leaf" &&
          !n.name.startsWith("_") &&
          dirOf(n.file_path) === dir &&
          !normalizePath(n.file_path).endsWith("/__init__.py"),
      )
      .map((n) => ({ module: moduleOf(n.file_path), name: n.name }))
      .sort((a, b) => (a.module === b.module ? a.name.localeCompare(b.name) : a.module.localeCompare(b.module)));
    const lines = [`"""The ${moduleOf(`${dir}/__init__.py`)} package. ${MARKER}."""`];
    if (symbols.length > 0) {
      const byModule = new Map<string, string[]>();
      for (const s of symbols) byModule.set(s.module, [...(byModule.get(s.module) ?? []), s.name]);
      lines.push("", ...[...byModule].map(([module, names]) => `from ${module} import ${names.join(", ")}`));
      lines.push("", `__all__ = [${symbols.map((s) => JSON.stringify(s.name)).join(", ")}]`);
    }
    files.set(`${dir}/__init__.py`, `${lines.join("\n")}\n`);
  }
  return files;
}

function dirOf(path: string): string {
  return normalizePath(path).split("/").slice(0, -1).join("/");
}
