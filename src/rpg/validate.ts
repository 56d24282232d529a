import { refSafe } from "./ref-names.js";
import { findCycles } from "./cycles.js";
import { buildDependencyGraph, buildSubgraphGraph, dependencyOf } from "./graph.js";
import { checkIdCharacters } from "./id-characters.js";
import { rpgError, rpgWarning, type RpgIssue } from "./issues.js";
import {
  checkFilePath,
  checkImportPath,
  checkShadowing,
  findModulePackageClashes,
  identifierProblem,
  isModulePath,
  normalizePath,
  packageDirectory,
  type ImportablePath,
  type PathProblem,
} from "./paths.js";
import type { Rpg, RpgEdge, RpgNode } from "./schema.js";

const LEAF_ONLY_TYPES = new Set(["function", "class", "method", "async_function", "constant"]);
const COMPOSITE_ONLY_TYPES = new Set(["module", "package"]);

/**
 * Checks what the schema cannot: references, uniqueness, paths, the composite tree and
 * cycles. Reports every problem it finds rather than stopping at the first, so that a
 * planner can fix a graph in one pass.
 */
export function validateRpg(rpg: Rpg): RpgIssue[] {
  // An id with a control character is malformed, like a shape problem: the checks below would repeat it raw.
  const unprintable = checkIdCharacters(rpg);
  if (unprintable.length > 0) return unprintable;
  const issues: RpgIssue[] = [];
  const firstIndex = new Map<string, number>();
  rpg.nodes.forEach((node, i) => {
    const seen = firstIndex.get(node.id);
    if (seen === undefined) firstIndex.set(node.id, i);
    else
      issues.push(
        rpgError(
          "RPG_DUPLICATE_ID",
          `id "${node.id}" is used by nodes ${seen} and ${i}; ids must be unique`,
          { nodeId: node.id, field: "id" },
          ["nodes", i, "id"],
        ),
      );
  });
  const byId = new Map(rpg.nodes.map((n) => [n.id, n]));
  const pointerOf = (id: string, field: string): (string | number)[] => ["nodes", firstIndex.get(id) ?? 0, field];

  const subgraphIds = new Set<string>();
  rpg.subgraphs?.forEach((subgraph, i) => {
    if (subgraphIds.has(subgraph.id)) {
      issues.push(
        rpgError("RPG_DUPLICATE_SUBGRAPH", `subgraph id "${subgraph.id}" is listed twice`, { field: `subgraphs[${i}].id` }, [
          "subgraphs",
          i,
          "id",
        ]),
      );
    }
    subgraphIds.add(subgraph.id);
  });
  // Each subgraph gets a branch rpg/<name>/<id>, and a branch name holds fewer characters than an id.
  const branchOwners = new Map<string, string>();
  for (const id of [...subgraphIds, ...rpg.nodes.map((n) => n.subgraph_id)]) {
    const branch = refSafe(id);
    const owner = branchOwners.get(branch);
    if (owner === undefined) branchOwners.set(branch, id);
    else if (owner !== id) {
      branchOwners.set(branch, id);
      issues.push(
        rpgError("RPG_SUBGRAPH_BRANCH_CLASH", `subgraphs "${owner}" and "${id}" would share the branch name "${branch}"; rename one`, {
          field: "subgraph_id",
          nodeId: rpg.nodes.find((n) => n.subgraph_id === id)?.id,
        }),
      );
    }
  }

  const symbols = new Map<string, string>();
  const importable: (ImportablePath | undefined)[] = [];
  /** Import-name problems per distinct path: many nodes share a file. */
  const importProblems = new Map<string, PathProblem[]>();
  rpg.nodes.forEach((node, i) => {
    const at = (field: string) => ({ nodeId: node.id, field });
    const ptr = (field: string) => ["nodes", i, field];
    if (node.node_type === "leaf" && node.docstring.trim() === "") {
      issues.push(
        rpgError(
          "RPG_MISSING_DOCSTRING",
          "a leaf needs a docstring: it is the specification its tests are written from",
          at("docstring"),
          ptr("docstring"),
        ),
      );
    }
    if (node.node_type === "leaf" && COMPOSITE_ONLY_TYPES.has(node.type)) {
      issues.push(
        rpgError(
          "RPG_COMPOSITE_LEAF_MIXUP",
          `a node of type "${node.type}" must have node_type "composite"`,
          at("node_type"),
          ptr("node_type"),
        ),
      );
    }
    if (node.node_type === "composite" && LEAF_ONLY_TYPES.has(node.type)) {
      issues.push(
        rpgError(
          "RPG_COMPOSITE_LEAF_MIXUP",
          `a node of type "${node.type}" must have node_type "leaf"; composites are modules or packages`,
          at("node_type"),
          ptr("node_type"),
        ),
      );
    }
    const kind = node.node_type === "composite" && !isModulePath(node.file_path) ? "package" : "file";
    const pathProblems = checkFilePath(node.file_path, kind);
    // A path already rejected is not also checked as an import name: one problem per path is enough.
    if (pathProblems.length === 0) {
      const key = `${kind}:${node.file_path}`;
      let found = importProblems.get(key);
      if (found === undefined) {
        found = checkImportPath(node.file_path, kind);
        const shadow = found.length === 0 ? checkShadowing(node.file_path, kind) : undefined;
        if (shadow) found.push(shadow);
        importProblems.set(key, found);
      }
      pathProblems.push(...found);
      importable[i] = { path: node.file_path, kind, composite: node.node_type === "composite" };
    }
    for (const problem of pathProblems) issues.push(rpgError(problem.code, problem.message, at("file_path"), ptr("file_path")));
    const nameProblem = checkName(node);
    if (nameProblem !== undefined) issues.push(rpgError("RPG_NAME_NOT_IDENTIFIER", nameProblem, at("name"), ptr("name")));

    if (rpg.subgraphs && !subgraphIds.has(node.subgraph_id)) {
      issues.push(
        rpgError(
          "RPG_UNKNOWN_SUBGRAPH",
          `subgraph "${node.subgraph_id}" is not in the top-level subgraphs list`,
          at("subgraph_id"),
          ptr("subgraph_id"),
        ),
      );
    }
    node.dependencies.forEach((dep, j) => {
      if (!byId.has(dep))
        issues.push(
          rpgError("RPG_DANGLING_REFERENCE", `depends on "${dep}", which is not a node of the graph`, at(`dependencies[${j}]`), [
            "nodes",
            i,
            "dependencies",
            j,
          ]),
        );
    });
    if (node.parent_id !== undefined) checkParent(node, byId.get(node.parent_id), i, issues);
    if (node.node_type === "leaf") {
      // A method's name is its class's to hold: two classes may each have __init__, and a method may share a function's name.
      const owner = node.type === "method" && node.parent_id !== undefined ? byId.get(node.parent_id) : undefined;
      const scope = owner?.type === "class" ? `${owner.name}.` : "";
      const key = `${normalizePath(node.file_path)}\u0000${scope}${node.name}`;
      const other = symbols.get(key);
      if (other !== undefined && other !== node.id) {
        issues.push(
          rpgError(
            "RPG_DUPLICATE_SYMBOL",
            `"${node.name}" in ${node.file_path} is also defined by node "${other}"`,
            at("name"),
            ptr("name"),
          ),
        );
      } else symbols.set(key, node.id);
    }
  });

  for (const clash of findModulePackageClashes(importable)) {
    const pkg = rpg.nodes[clash.packageIndex]!;
    const module = rpg.nodes[clash.moduleIndex]!;
    issues.push(
      rpgError(
        "RPG_MODULE_PACKAGE_CLASH",
        `${pkg.file_path} makes ${clash.location}/ a package, but node "${module.id}" has the module ${module.file_path}: ` +
          `both would be imported as ${clash.importName}`,
        { nodeId: pkg.id, field: "file_path" },
        ["nodes", clash.packageIndex, "file_path"],
      ),
    );
  }

  rpg.edges.forEach((edge, i) => {
    for (const end of ["source", "target"] as const) {
      if (!byId.has(edge[end])) {
        const { dependent } = dependencyOf(edge.type, edge.source, edge.target);
        const at = byId.has(dependent) ? { nodeId: dependent, field: `edges[${i}].${end}` } : { field: `edges[${i}].${end}` };
        issues.push(rpgError("RPG_DANGLING_REFERENCE", `edge ${end} "${edge[end]}" is not a node of the graph`, at, ["edges", i, end]));
      }
    }
    if (edge.type === "inherits") checkInherits(edge, i, byId, issues);
  });

  const graph = buildDependencyGraph(rpg);
  for (const cycle of findCycles(graph)) {
    const first = cycle[0]!;
    issues.push(
      rpgError(
        "RPG_CYCLE",
        `dependency cycle: ${cycle.join(" → ")} (each depends on the next)`,
        { nodeId: first, field: "dependencies" },
        pointerOf(first, "id"),
      ),
    );
  }
  for (const cycle of findCycles(buildSubgraphGraph(rpg, graph))) {
    issues.push(
      rpgWarning(
        "RPG_SUBGRAPH_CYCLE",
        `subgraphs depend on each other in a circle: ${cycle.join(" → ")}; they cannot be stacked as branches`,
        { field: "subgraph_id" },
      ),
    );
  }
  return issues;
}

/** Leaves define their name with def or class, composites are imported by it: either way it must be a Python name. */
function checkName(node: RpgNode): string | undefined {
  const problem = identifierProblem(node.name);
  if (problem === undefined) return undefined;
  const name = JSON.stringify(node.name);
  const what = node.node_type === "leaf" ? "function or class" : "module or package";
  return problem === "keyword"
    ? `${name} is a Python keyword and cannot name a ${what}; e.g. "${node.name}_"`
    : `${name} is not a Python identifier (ASCII letters, digits and _, not starting with a digit), so it cannot name a ${what}`;
}

/**
 * An inherits edge makes its source a subclass of its target, so both ends must be classes. A dangling end is
 * reported already, and a composite typed "class" is RPG_COMPOSITE_LEAF_MIXUP: neither is reported again here.
 */
function checkInherits(edge: RpgEdge, index: number, byId: ReadonlyMap<string, RpgNode>, issues: RpgIssue[]): void {
  for (const end of ["source", "target"] as const) {
    const node = byId.get(edge[end]);
    if (!node || node.type === "class") continue;
    const what = `${end} ${JSON.stringify(node.id)} is ${describeType(node.type)}`;
    const message =
      end === "source"
        ? `the ${what}, so it cannot inherit from ${JSON.stringify(edge.target)}; both ends of an inherits edge must be classes`
        : `the ${what}, so ${JSON.stringify(edge.source)} cannot inherit from it; both ends of an inherits edge must be classes`;
    const field = `edges[${index}].${end}`;
    // As for a dangling edge end: the node shown is the dependent end (for inherits, the source) when it exists.
    const at = byId.has(edge.source) ? { nodeId: edge.source, field } : { field };
    issues.push(rpgError("RPG_INHERITS_NOT_CLASS", message, at, ["edges", index, end]));
  }
}

/** "a function", "an async_function"; a type the format does not name is quoted. */
function describeType(type: string): string {
  if (!LEAF_ONLY_TYPES.has(type) && !COMPOSITE_ONLY_TYPES.has(type)) return `a node of type ${JSON.stringify(type)}`;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

function checkParent(node: RpgNode, parent: RpgNode | undefined, index: number, issues: RpgIssue[]): void {
  const at = { nodeId: node.id, field: "parent_id" };
  const ptr = ["nodes", index, "parent_id"];
  if (!parent) {
    issues.push(rpgError("RPG_DANGLING_REFERENCE", `parent "${node.parent_id}" is not a node of the graph`, at, ptr));
    return;
  }
  if (parent.node_type !== "composite") {
    // A class holds its methods: a method leaf's parent is its class, in the same file.
    if (parent.type === "class" && node.type === "method" && node.node_type === "leaf") {
      if (normalizePath(node.file_path) !== normalizePath(parent.file_path))
        issues.push(
          rpgError(
            "RPG_PARENT_PATH_MISMATCH",
            `file_path ${node.file_path} is not the file of its class "${parent.id}" (${parent.file_path})`,
            { nodeId: node.id, field: "file_path" },
            ["nodes", index, "file_path"],
          ),
        );
      return;
    }
    issues.push(
      rpgError(
        "RPG_PARENT_NOT_COMPOSITE",
        `parent "${parent.id}" is a leaf; only composite nodes (modules, packages) contain other nodes, and a class its methods`,
        at,
        ptr,
      ),
    );
    return;
  }
  const own = normalizePath(node.file_path);
  const inside = isModulePath(parent.file_path)
    ? own === normalizePath(parent.file_path)
    : own.startsWith(`${packageDirectory(parent.file_path)}/`);
  if (!inside) {
    issues.push(
      rpgError(
        "RPG_PARENT_PATH_MISMATCH",
        `file_path ${node.file_path} is not inside its parent "${parent.id}" (${parent.file_path})`,
        { nodeId: node.id, field: "file_path" },
        ["nodes", index, "file_path"],
      ),
    );
  }
}
