import type { z } from "zod";
import { rpgError, rpgWarning, type RpgIssue, type RpgIssueCode } from "./issues.js";
import {
  KNOWN_KEYS,
  RpgEdgeSchema,
  RpgMetadataSchema,
  RpgNodeSchema,
  RpgSubgraphSchema,
  type Rpg,
  type RpgEdge,
  type RpgNode,
  type RpgSubgraph,
} from "./schema.js";

type Pointer = (string | number)[];

/**
 * Checks the shape of a parsed RPG element by element, so that one bad node does not
 * hide the problems of the others. Returns the elements that have the right shape
 * (for the semantic checks) and an issue per shape problem, each pointing at the
 * node and field it is about.
 */
export function checkShape(data: unknown): { rpg: Rpg; issues: RpgIssue[] } {
  const issues: RpgIssue[] = [];
  const rpg: Rpg = { nodes: [], edges: [], metadata: {} };
  if (!isRecord(data)) {
    issues.push(rpgError("RPG_SCHEMA", `the file must hold a JSON object with a "nodes" array, not ${describe(data)}`, {}, []));
    return { rpg, issues };
  }
  warnUnknownKeys(data, KNOWN_KEYS.root, [], undefined, issues);
  // Unknown top-level keys travel on (into docs/rpg.json) like unknown node keys do.
  for (const key of Object.keys(data)) if (!KNOWN_KEYS.root.includes(key)) rpg[key] = data[key];

  if (!("nodes" in data)) {
    issues.push(rpgError("RPG_MISSING_FIELD", 'the graph has no "nodes" array', { field: "nodes" }, []));
  } else if (!Array.isArray(data.nodes)) {
    issues.push(rpgError("RPG_FIELD_TYPE", `"nodes" must be an array, not ${describe(data.nodes)}`, { field: "nodes" }, ["nodes"]));
  } else if (data.nodes.length === 0) {
    issues.push(rpgError("RPG_EMPTY", "the graph has no nodes; there is nothing to generate", { field: "nodes" }, ["nodes"]));
  } else {
    data.nodes.forEach((raw, i) => {
      const node = checkElement(RpgNodeSchema, raw, ["nodes", i], KNOWN_KEYS.node, nodeIdOf(raw), issues);
      if (node) rpg.nodes.push(node as RpgNode);
    });
  }

  if ("edges" in data && !Array.isArray(data.edges)) {
    issues.push(rpgError("RPG_FIELD_TYPE", `"edges" must be an array, not ${describe(data.edges)}`, { field: "edges" }, ["edges"]));
  } else if (Array.isArray(data.edges)) {
    data.edges.forEach((raw, i) => {
      const source = isRecord(raw) && typeof raw.source === "string" ? raw.source : undefined;
      const edge = checkElement(RpgEdgeSchema, raw, ["edges", i], KNOWN_KEYS.edge, source, issues);
      if (edge) rpg.edges.push(edge as RpgEdge);
    });
  }

  if ("subgraphs" in data && !Array.isArray(data.subgraphs)) {
    issues.push(
      rpgError("RPG_FIELD_TYPE", `"subgraphs" must be an array, not ${describe(data.subgraphs)}`, { field: "subgraphs" }, ["subgraphs"]),
    );
  } else if (Array.isArray(data.subgraphs)) {
    rpg.subgraphs = [];
    data.subgraphs.forEach((raw, i) => {
      const subgraph = checkElement(RpgSubgraphSchema, raw, ["subgraphs", i], KNOWN_KEYS.subgraph, undefined, issues);
      if (subgraph) rpg.subgraphs!.push(subgraph as RpgSubgraph);
    });
  }

  if ("metadata" in data) {
    const metadata = checkElement(RpgMetadataSchema, data.metadata, ["metadata"], undefined, undefined, issues);
    if (metadata) rpg.metadata = metadata as Rpg["metadata"];
  }
  return { rpg, issues };
}

function checkElement(
  schema: z.ZodType,
  raw: unknown,
  pointer: Pointer,
  knownKeys: readonly string[] | undefined,
  nodeId: string | undefined,
  issues: RpgIssue[],
): unknown {
  const result = schema.safeParse(raw, { reportInput: true });
  if (isRecord(raw) && knownKeys) warnUnknownKeys(raw, knownKeys, pointer, nodeId, issues);
  if (result.success) return result.data;
  for (const problem of result.error.issues) {
    const path = [...pointer, ...(problem.path as (string | number)[])];
    const field = fieldName(path);
    const at = nodeId === undefined ? { field } : { nodeId, field };
    issues.push(
      rpgError(codeOf(problem, raw, pointer, path.slice(pointer.length)), messageOf(problem, path, raw, pointer.length), at, path),
    );
  }
  return undefined;
}

function codeOf(problem: z.core.$ZodIssue, raw: unknown, pointer: Pointer, relative: Pointer): RpgIssueCode {
  if (problem.code === "invalid_type") return valueAt(raw, relative) === undefined ? "RPG_MISSING_FIELD" : "RPG_FIELD_TYPE";
  if (problem.code === "invalid_value") {
    const isEdgeType = pointer[0] === "edges" && relative.length === 1 && relative[0] === "type";
    return isEdgeType ? "RPG_UNKNOWN_EDGE_TYPE" : "RPG_INVALID_VALUE";
  }
  return "RPG_SCHEMA";
}

function messageOf(problem: z.core.$ZodIssue, path: Pointer, raw: unknown, depth: number): string {
  const name = path[path.length - 1];
  const value = valueAt(raw, path.slice(depth));
  if (problem.code === "invalid_type") {
    return value === undefined && typeof name === "string"
      ? `required field "${name}" is missing`
      : `expected ${problem.expected}, got ${describe(value)}`;
  }
  if (problem.code === "invalid_value" && "values" in problem) {
    return `${JSON.stringify(value)} is not one of ${problem.values.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (problem.code === "too_small" && typeof value === "string") return "must not be empty";
  return problem.message;
}

function warnUnknownKeys(
  raw: Record<string, unknown>,
  known: readonly string[],
  pointer: Pointer,
  nodeId: string | undefined,
  issues: RpgIssue[],
): void {
  for (const key of Object.keys(raw)) {
    if (known.includes(key)) continue;
    const field = fieldName([...pointer, key]);
    issues.push(
      rpgWarning(
        "RPG_UNKNOWN_FIELD",
        `unknown key "${key}" is kept but has no effect`,
        nodeId === undefined ? { field } : { nodeId, field },
        [...pointer, key],
      ),
    );
  }
}

/** `["nodes", 4, "file_path"]` -> `file_path`; `["edges", 2, "type"]` -> `edges[2].type`. Node issues name the node by id instead of index. */
function fieldName(path: Pointer): string {
  const rest = path[0] === "nodes" && typeof path[1] === "number" ? path.slice(2) : path;
  if (rest.length === 0) return "-";
  return rest.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

function nodeIdOf(raw: unknown): string | undefined {
  return isRecord(raw) && typeof raw.id === "string" && raw.id.length > 0 ? raw.id : undefined;
}

function valueAt(raw: unknown, path: Pointer): unknown {
  let value = raw;
  for (const key of path) {
    if (Array.isArray(value) && typeof key === "number") value = value[key];
    else if (isRecord(value) && typeof key === "string") value = value[key];
    else return undefined;
  }
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
