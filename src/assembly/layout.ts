import { symbolKindOf } from "../rpg/symbol-kind.js";
import { normalizePath } from "../rpg/paths.js";
import type { Rpg, RpgNode } from "../rpg/schema.js";

/**
 * Where things go in the generated package. Code under src/ is imported without the
 * src/ prefix (the src layout); anything else is imported from the repository root.
 */
export function moduleOf(filePath: string): string {
  const path = normalizePath(filePath)
    .replace(/^src\//, "")
    .replace(/\.py$/, "");
  return path
    .replace(/\/__init__$/, "")
    .split("/")
    .join(".");
}

/**
 * The test file of each leaf: tests/test_<module>.py after the module's file name,
 * shared by all nodes of that module. Where two modules have the same file name
 * (stats/utils.py and report/utils.py) both use their dotted path instead, so that
 * their tests never share a file.
 */
export function testFiles(rpg: Pick<Rpg, "nodes">): Map<string, string> {
  const leaves = rpg.nodes.filter((n) => n.node_type === "leaf");
  const modulesByStem = new Map<string, Set<string>>();
  for (const node of leaves) {
    const module = moduleOf(node.file_path);
    const stem = module.split(".").pop()!;
    modulesByStem.set(stem, (modulesByStem.get(stem) ?? new Set()).add(module));
  }
  const files = new Map<string, string>();
  for (const node of leaves) {
    const module = moduleOf(node.file_path);
    const stem = module.split(".").pop()!;
    const name = modulesByStem.get(stem)!.size > 1 ? module.replace(/\./g, "_") : stem;
    files.set(node.id, `tests/test_${name}.py`);
  }
  return files;
}

/** A node's test file (testFiles' choice; a node it does not name, a composite, gets its own by id). */
export function testFileLookup(rpg: Pick<Rpg, "nodes">): (id: string) => string {
  const files = testFiles(rpg);
  return (id) => files.get(id) ?? `tests/test_${id}.py`;
}

/**
 * The integration test file of each subgraph (decision 0024): tests/integration/test_<subgraph>.py, the id
 * as a Python identifier. Ids that come out the same (a-b and a_b) get their position in the list appended.
 */
export function integrationTestFiles(rpg: Pick<Rpg, "nodes" | "subgraphs">): Map<string, string> {
  const ids = [...new Set([...(rpg.subgraphs ?? []).map((s) => s.id), ...rpg.nodes.map((n) => n.subgraph_id)])];
  const stems = ids.map((id) => id.toLowerCase().replace(/[^a-z0-9_]+/g, "_"));
  const files = new Map<string, string>();
  ids.forEach((id, i) => {
    const stem = stems[i]!;
    const name = stems.indexOf(stem) === stems.lastIndexOf(stem) ? stem : `${stem}_${i + 1}`;
    files.set(id, `tests/integration/test_${name}.py`);
  });
  return files;
}

/** Package directories that need an __init__.py for the nodes' modules to import as regular packages. */
export function packageDirectories(rpg: Pick<Rpg, "nodes">): string[] {
  const dirs = new Set<string>();
  for (const node of rpg.nodes) {
    if (node.node_type !== "leaf") continue;
    const parts = normalizePath(node.file_path).split("/").slice(0, -1);
    const start = parts[0] === "src" ? 2 : 1;
    for (let i = start; i <= parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return [...dirs].sort();
}

/** `def name(...)`/`class Name(...)` as the node declares it, for prompts; the name alone when there is no signature. */
export function signatureOf(node: RpgNode): string {
  if (node.signature && node.signature.trim() !== "") return node.signature.trim();
  const kind = symbolKindOf(node);
  return kind === "class" ? `class ${node.name}` : kind === "constant" ? `${node.name} = ...` : `def ${node.name}(...)`;
}
