import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { moduleOf } from "../src/assembly/layout.js";
import { compareIds } from "../src/rpg/ids.js";
import { buildDependencyGraph } from "../src/rpg/graph.js";
import type { Rpg, RpgNode } from "../src/rpg/schema.js";

/**
 * The Python a generated repository of `rpg` would hold, without a model: each leaf a function (or a class with one
 * method) with the plan's signature and docstring, calling every leaf it depends on (through its module for another
 * module's), so that the code has exactly the plan's dependencies. For benchmarks of what reads a generated
 * repository (symbols, references, views); the code parses and is never run.
 */
export async function writeSyntheticRepository(rpg: Pick<Rpg, "nodes" | "edges">, root: string): Promise<string[]> {
  const leaves = rpg.nodes.filter((n) => n.node_type === "leaf").sort((a, b) => compareIds(a.id, b.id));
  const byId = new Map(leaves.map((n) => [n.id, n]));
  const graph = buildDependencyGraph(rpg);
  const files = new Map<string, RpgNode[]>();
  for (const node of leaves) files.set(node.file_path, [...(files.get(node.file_path) ?? []), node]);
  const written: string[] = [];
  const packages = new Set<string>();
  for (const [file, nodes] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const module = moduleOf(file);
    const imports = new Set<string>(["from collections.abc import Iterable, Mapping"]);
    const blocks = nodes.map((node) => {
      const calls = (graph.get(node.id) ?? []).flatMap((id) => {
        const dep = byId.get(id);
        if (!dep) return [];
        const depModule = moduleOf(dep.file_path);
        if (depModule === module) return [`${dep.name}()`];
        const alias = depModule.replace(/\./g, "_");
        imports.add(`from ${depModule.split(".").slice(0, -1).join(".")} import ${depModule.split(".").at(-1)} as ${alias}`);
        return [`${alias}.${dep.name}()`];
      });
      return definition(node, calls);
    });
    const text = `"""The ${module} module."""\n${[...imports].sort().join("\n")}\n\n\n${blocks.join("\n\n\n")}\n`;
    await writeOut(root, file, text);
    written.push(file);
    const parts = file.split("/").slice(0, -1);
    for (let i = parts[0] === "src" ? 2 : 1; i <= parts.length; i++) packages.add(parts.slice(0, i).join("/"));
  }
  for (const dir of [...packages].sort()) {
    if (files.has(`${dir}/__init__.py`)) continue;
    await writeOut(root, `${dir}/__init__.py`, "");
    written.push(`${dir}/__init__.py`);
  }
  return written;
}

function definition(node: RpgNode, calls: readonly string[]): string {
  const doc = `"""${node.docstring.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"')}"""`;
  const indent = (text: string, by: string): string => text.replace(/\n(?!\n)/g, `\n${by}`);
  if (node.type === "class") {
    const body = calls.map((c) => `        ${c}`).join("\n");
    return `class ${node.name}:\n    ${indent(doc, "    ")}\n\n    def run(self):\n${body ? `${body}\n` : ""}        return None`;
  }
  const signature = node.signature?.startsWith("def ") ? node.signature : `def ${node.name}()`;
  return `${signature}:\n    ${indent(doc, "    ")}\n${calls.map((c) => `    ${c}\n`).join("")}    return None`;
}

async function writeOut(root: string, rel: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), text);
}
