import { rpgError, type RpgIssue } from "./issues.js";
import type { Rpg } from "./schema.js";

// C0 controls, DEL and C1 controls (U+009B is a terminal's CSI, like ESC [).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Whether text holds a control character (C0, DEL or C1). */
export const hasControlCharacter = (text: string): boolean => CONTROL.test(text);

/** Text with each control character written as an escape (`\n`, `\u001b`), so it prints as one plain line. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROLS, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Ids end up in the generated test file (as markers and test names), in git branch and tag names and
 * on terminal lines: a newline there writes module-level Python into a shared test file, an ESC
 * rewrites the terminal. Every id and every reference to one is checked. The other checks would
 * repeat such an id raw in their messages, so the caller reports these alone.
 */
export function checkIdCharacters(rpg: Rpg): RpgIssue[] {
  const issues: RpgIssue[] = [];
  const check = (value: string, what: string, nodeId: string | undefined, field: string, pointer: (string | number)[]): void => {
    if (!hasControlCharacter(value)) return;
    const code = value.match(CONTROL)![0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    const at = nodeId === undefined || hasControlCharacter(nodeId) ? { field } : { nodeId, field };
    issues.push(
      rpgError(
        "RPG_ID_CONTROL_CHARACTER",
        `${what} "${escapeControlCharacters(value)}" holds the control character U+${code}; ids and references to them must be printable, since they are written into test files, branch names and terminals`,
        field === "id" ? { ...at, nodeId: escapeControlCharacters(value) } : at,
        pointer,
      ),
    );
  };
  rpg.nodes.forEach((node, i) => {
    check(node.id, "id", node.id, "id", ["nodes", i, "id"]);
    check(node.subgraph_id, "subgraph id", node.id, "subgraph_id", ["nodes", i, "subgraph_id"]);
    if (node.parent_id !== undefined) check(node.parent_id, "parent_id", node.id, "parent_id", ["nodes", i, "parent_id"]);
    node.dependencies.forEach((dep, j) => check(dep, "dependency", node.id, `dependencies[${j}]`, ["nodes", i, "dependencies", j]));
  });
  rpg.edges.forEach((edge, i) => {
    for (const end of ["source", "target"] as const) check(edge[end], `edge ${end}`, undefined, `edges[${i}].${end}`, ["edges", i, end]);
  });
  rpg.subgraphs?.forEach((subgraph, i) => check(subgraph.id, "subgraph id", undefined, `subgraphs[${i}].id`, ["subgraphs", i, "id"]));
  return issues;
}
