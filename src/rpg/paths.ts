import type { RpgIssueCode } from "./issues.js";

/** Top-level directories that belong to rpg-forge or the generated project's scaffolding, never to a node. */
const RESERVED_TOP_DIRS = new Set(["tests", "docs", ".git", ".rpg-forge"]);
/** Root-level files the assembly writes or pytest treats specially. */
const RESERVED_ROOT_FILES = new Set(["setup.py", "conftest.py"]);

export interface PathProblem {
  code: RpgIssueCode;
  message: string;
}

/**
 * Checks a node's file_path against the rules every edge relies on: generated code
 * is untrusted, so its location must stay inside the package and out of .github/
 * however the path is spelt. `kind` says what the path must name.
 */
export function checkFilePath(path: string, kind: "file" | "package"): PathProblem[] {
  // eslint-disable-next-line no-control-regex
  if (path.includes("\\") || /[\u0000-\u001f]/.test(path)) {
    return [{ code: "RPG_PATH_INVALID", message: `${JSON.stringify(path)} is not a POSIX path (backslash or control character)` }];
  }
  if (path.startsWith("/") || path.startsWith("~") || /^[A-Za-z]:/.test(path)) {
    return [
      {
        code: "RPG_PATH_ABSOLUTE",
        message: `${JSON.stringify(path)} is absolute; give it relative to the repository root, e.g. "src/pkg/module.py"`,
      },
    ];
  }
  const segments = path.replace(/\/$/, "").split("/");
  if (segments.includes("..")) {
    return [{ code: "RPG_PATH_TRAVERSAL", message: `${JSON.stringify(path)} contains "..", which could leave the package` }];
  }
  if (segments.some((s) => s === "")) {
    return [{ code: "RPG_PATH_INVALID", message: `${JSON.stringify(path)} has an empty segment ("//")` }];
  }
  const meaningful = segments.filter((s) => s !== ".");
  if (meaningful.some((s) => s.toLowerCase() === ".github")) {
    return [{ code: "RPG_PATH_GITHUB", message: `${JSON.stringify(path)} points into .github/, which generated code may never write` }];
  }
  // Compared case-insensitively: on macOS and Windows runners Tests/ is tests/.
  const lower = meaningful.map((s) => s.toLowerCase());
  const top = lower[0] ?? "";
  if (
    meaningful.length === 0 ||
    RESERVED_TOP_DIRS.has(top) ||
    lower.includes(".git") ||
    (lower.length === 1 && RESERVED_ROOT_FILES.has(top))
  ) {
    return [
      {
        code: "RPG_PATH_OUTSIDE_PACKAGE",
        message: `${JSON.stringify(path)} lies outside the package (tests/, docs/, .git/, .rpg-forge/ and ${[...RESERVED_ROOT_FILES].join(", ")} are reserved)`,
      },
    ];
  }
  if (kind === "file" && !path.endsWith(".py")) {
    return [{ code: "RPG_PATH_NOT_PYTHON", message: `${JSON.stringify(path)} is not a .py file` }];
  }
  return [];
}

/** `./src/pkg/` -> `src/pkg`: the form paths are compared in. Only for paths that passed checkFilePath. */
export function normalizePath(path: string): string {
  return path
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .join("/");
}

/** The directory a package composite stands for: its path, or the folder of its __init__.py. */
export function packageDirectory(path: string): string {
  const normal = normalizePath(path);
  return normal.endsWith("/__init__.py") ? normal.slice(0, -"/__init__.py".length) : normal;
}

/** A composite whose path is a .py file other than __init__.py is a module; anything else is a package. */
export function isModulePath(path: string): boolean {
  return path.endsWith(".py") && path.split("/").pop() !== "__init__.py";
}
