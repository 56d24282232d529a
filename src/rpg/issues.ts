import type { Location } from "../errors.js";

/**
 * Every problem the loader and validator can report, with the sentence docs/errors.md
 * shows for it. Codes are part of the interface: planners and CI scripts match on
 * them, so a code keeps its name once released.
 */
export const RPG_ISSUE_CODES = {
  RPG_UNREADABLE: "The RPG file does not exist or cannot be read.",
  RPG_JSON_SYNTAX: "The file is not valid JSON; the message names the line and column.",
  RPG_SCHEMA: "A value does not have the shape the RPG format requires.",
  RPG_MISSING_FIELD: "A required field is missing.",
  RPG_FIELD_TYPE: "A field has the wrong type (for example a number where a string is required).",
  RPG_INVALID_VALUE: "A field has a value outside the allowed set (for example node_type other than leaf or composite).",
  RPG_UNKNOWN_EDGE_TYPE: "An edge type other than function_call, import, inherits, uses or data_flow.",
  RPG_UNKNOWN_FIELD: "(warning) A key the format does not define; it is kept but has no effect. Often a misspelling.",
  RPG_EMPTY: "The graph has no nodes.",
  RPG_ID_CONTROL_CHARACTER:
    "A node id, subgraph id or reference to one (dependency, edge end, parent_id) holds a control character (newline, NUL, ESC, ...).",
  RPG_DUPLICATE_ID: "Two nodes share an id.",
  RPG_DUPLICATE_SUBGRAPH: "Two entries of the subgraphs list share an id.",
  RPG_SUBGRAPH_BRANCH_CLASH: "Two subgraph ids differ only in characters a git branch name cannot hold, so they would share a branch.",
  RPG_DUPLICATE_SYMBOL: "Two leaf nodes define the same name in the same file.",
  RPG_DANGLING_REFERENCE: "A dependency, edge end or parent_id names a node that does not exist.",
  RPG_UNKNOWN_SUBGRAPH: "A node's subgraph_id is not in the top-level subgraphs list.",
  RPG_CYCLE: "Nodes depend on each other in a circle; the message names them in order.",
  RPG_SUBGRAPH_CYCLE: "(warning) Subgraphs depend on each other in a circle, so they cannot become stacked branches.",
  RPG_MISSING_DOCSTRING: "A leaf node has an empty docstring; the docstring is the specification the tests are written from.",
  RPG_PATH_ABSOLUTE: "A file_path is absolute; paths are relative to the repository root.",
  RPG_PATH_TRAVERSAL: "A file_path contains a '..' segment.",
  RPG_PATH_OUTSIDE_PACKAGE: "A file_path lies outside the package: in tests/, docs/, .git/ or .rpg-forge/, or at a reserved name.",
  RPG_PATH_GITHUB: "A file_path points into .github/, which generated code may never write.",
  RPG_PATH_NOT_PYTHON: "A leaf or module node whose file_path does not end in .py.",
  RPG_PATH_INVALID: "A file_path that is not a plain POSIX path (backslashes, empty segments, control characters).",
  RPG_PATH_SHADOWS_MODULE:
    "A file_path whose top-level import name is a module the test gate imports: Python's standard library, pytest and its plugins, or rpg-forge's own.",
  RPG_PARENT_NOT_COMPOSITE: "A node's parent_id names a leaf; only composite nodes contain other nodes.",
  RPG_PARENT_PATH_MISMATCH: "A node's file_path is not inside the module or package of its parent.",
  RPG_COMPOSITE_LEAF_MIXUP: "A composite node typed as a function or class, or a leaf typed as a module or package.",
  RPG_INHERITS_NOT_CLASS:
    "An inherits edge whose source or target is not a class: only a class can subclass, or be subclassed by, another.",
  RPG_NAME_NOT_IDENTIFIER:
    "A node's name, or a directory or module in its file_path, is not a Python identifier or is a Python keyword, so it cannot be defined or imported.",
  RPG_MODULE_PACKAGE_CLASH: "One node's file_path makes a module (util.py) and another's a package (util/) of the same import name.",
} as const;

export type RpgIssueCode = keyof typeof RPG_ISSUE_CODES;

export type Severity = "error" | "warning";

/** A problem found in an RPG: data for the report, never thrown. */
export interface RpgIssue {
  code: RpgIssueCode;
  severity: Severity;
  message: string;
  at: Location;
  /** Where in the JSON document the problem sits; the loader turns it into a line and column. */
  pointer?: (string | number)[];
}

export type Loaded<T> = { ok: true; value: T; warnings: RpgIssue[] } | { ok: false; issues: RpgIssue[] };

export function rpgError(code: RpgIssueCode, message: string, at: Location, pointer?: (string | number)[]): RpgIssue {
  return pointer ? { code, severity: "error", message, at, pointer } : { code, severity: "error", message, at };
}

export function rpgWarning(code: RpgIssueCode, message: string, at: Location, pointer?: (string | number)[]): RpgIssue {
  return pointer ? { code, severity: "warning", message, at, pointer } : { code, severity: "warning", message, at };
}
