import { testFileLookup } from "../assembly/layout.js";
import { findTestBlock } from "../assembly/test-blocks.js";
import type { Rpg } from "../rpg/schema.js";
import { normalizePath } from "../rpg/paths.js";
import { symbolKindOf } from "../rpg/symbol-kind.js";
import { outlinePython, type TopLevelStatement } from "../workspace/python-outline.js";
import type { Checkpoint } from "./checkpoint.js";

/** Where a line of the package is, by the node it belongs to, or why it belongs to none. */
export type LineOwner = { nodeId: string; part: "code" | "tests" } | { nodeId?: undefined; why: string };

export interface LineLookup {
  rpg: Rpg;
  /** The names a passed node's code defines besides its symbol (its support code), as the checkpoint records them. */
  checkpoint: Pick<Checkpoint, "nodes"> | undefined;
  python: string;
}

/**
 * The node whose code or tests hold line `line` (1-based) of the file at `path` whose text is
 * `source`: a test file's line by the node's block, a module's by the top-level definition
 * around it (a method node's by its method in the class). What rpg-forge assembles (imports,
 * `__init__.py`, pyproject) belongs to no node.
 */
export async function nodeAtLine(lookup: LineLookup, path: string, source: string, line: number): Promise<LineOwner> {
  const file = normalizePath(path);
  const leaves = lookup.rpg.nodes.filter((n) => n.node_type === "leaf");
  const testFileOf = testFileLookup(lookup.rpg);
  const tested = leaves.filter((n) => testFileOf(n.id) === file);
  for (const node of tested) {
    const block = findTestBlock(source, node.id);
    if (block && block.start <= line && line <= block.end) return { nodeId: node.id, part: "tests" };
  }
  const inModule = leaves.filter((n) => normalizePath(n.file_path) === file);
  if (inModule.length === 0)
    return { why: tested.length > 0 ? "the line is outside every node's tests" : "the file is not a module or test file of a node" };

  const outline = await outlinePython(lookup.python, source);
  if (!outline.ok) return { why: `the file does not parse (line ${outline.line}: ${outline.message})` };
  const statement = outline.statements.find((s) => s.start <= line && line <= s.end);
  if (!statement) return { why: "the line is outside every definition" };
  const owners = ownersIn(inModule, lookup.checkpoint);
  const member = statement.kind === "class" ? statement.members?.find((m) => m.start <= line && line <= m.end) : undefined;
  const nodeId =
    (member && owners.get(`${statement.name}.${member.name}`)) ??
    namesOf(statement)
      .map((name) => owners.get(name))
      .find((id) => id !== undefined);
  if (nodeId !== undefined) return { nodeId, part: "code" };
  return {
    why:
      statement.kind === "import" || statement.kind === "future"
        ? "the line is an import rpg-forge writes"
        : "the line is outside every node's code",
  };
}

/** Every top-level name (`Class.method` for a method) → the node whose code defines it. */
function ownersIn(nodes: Rpg["nodes"], checkpoint: LineLookup["checkpoint"]): Map<string, string> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const owners = new Map<string, string>();
  for (const node of nodes) {
    const parent = node.parent_id === undefined ? undefined : byId.get(node.parent_id);
    const own = symbolKindOf(node) === "method" && parent ? `${parent.name}.${node.name}` : node.name;
    for (const name of checkpoint?.nodes[node.id]?.owns ?? [own]) if (!owners.has(name)) owners.set(name, node.id);
  }
  return owners;
}

function namesOf(statement: TopLevelStatement): string[] {
  return statement.names ?? (statement.name === null ? [] : [statement.name]);
}
