import type { RpgIssueCode } from "./issues.js";
import { STDLIB_MODULE_NAMES } from "./stdlib-modules.js";

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

/**
 * Python's hard keywords (3.12): none of them can be a def, class, module or package name. The soft keywords
 * (match, case, type, _) are ordinary names outside their statements, so they are allowed.
 */
const PYTHON_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);
/** ASCII only: Python also accepts Unicode identifiers (NFKC-normalised, XID classes), which we do not try to check. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why `word` cannot be a Python name, or undefined when it can. */
export function identifierProblem(word: string): "not-identifier" | "keyword" | undefined {
  if (!IDENTIFIER.test(word)) return "not-identifier";
  return PYTHON_KEYWORDS.has(word) ? "keyword" : undefined;
}

/**
 * The segments of a path that become parts of its import name: under src/ (the import root of the
 * src layout) those after it, elsewhere all of them; the module stem without .py, and no __init__.
 * `kind` is as for checkFilePath, and the path must have passed it.
 */
export function importSegments(path: string, kind: "file" | "package"): string[] {
  const segments = (kind === "package" ? packageDirectory(path) : normalizePath(path)).split("/").filter((s) => s !== "");
  if (segments[0] === "src") segments.shift();
  if (kind === "file") {
    const stem = (segments.pop() ?? "").replace(/\.py$/, "");
    if (stem !== "__init__" && stem !== "") segments.push(stem);
  }
  return segments;
}

/** One problem per segment of a path that checkFilePath accepted but Python could not import. */
export function checkImportPath(path: string, kind: "file" | "package"): PathProblem[] {
  const what = kind === "package" ? "package" : "module";
  const problems: PathProblem[] = [];
  for (const segment of new Set(importSegments(path, kind))) {
    const problem = identifierProblem(segment);
    if (problem === undefined) continue;
    const reason = problem === "keyword" ? "is a Python keyword" : "is not a Python identifier";
    problems.push({
      code: "RPG_NAME_NOT_IDENTIFIER",
      message: `${JSON.stringify(segment)} in ${path} ${reason}, so the ${what} cannot be imported`,
    });
  }
  return problems;
}

/**
 * Top-level modules the test gate imports besides the standard library: pytest, its plugin
 * manager and the packages pytest imports at start-up. `src/` and the root are first on
 * sys.path, so a node's module of one of these names would run in place of the real one.
 */
const GATE_MODULES = new Set(
  "pytest _pytest pluggy py iniconfig packaging exceptiongroup tomli pygments colorama sitecustomize usercustomize".split(" "),
);

/** The module a path would shadow, as a problem, or undefined; only for paths that checkImportPath accepted. */
export function checkShadowing(path: string, kind: "file" | "package"): PathProblem | undefined {
  const top = importSegments(path, kind)[0];
  if (top === undefined) return undefined;
  let what: string;
  if (/^rpg_forge(_|$)/.test(top)) what = "rpg-forge's own plugins (rpg_forge*)";
  else if (GATE_MODULES.has(top)) what = top === "sitecustomize" || top === "usercustomize" ? "Python's start-up hook" : "pytest";
  else if (STDLIB_MODULE_NAMES.has(top)) what = "the Python standard library";
  else return undefined;
  return {
    code: "RPG_PATH_SHADOWS_MODULE",
    message: `${path} would be imported as the top-level module "${top}", a name of ${what} that the test run imports; put it inside the package, e.g. src/<package>/${top}${kind === "file" ? ".py" : "/"}`,
  };
}

/** A node's path as the clash check needs it; `kind` is as for checkFilePath. */
export interface ImportablePath {
  path: string;
  kind: "file" | "package";
  composite: boolean;
}

/** A module file and a package directory at the same import name, as indices of the nodes that make them. */
export interface ModulePackageClash {
  packageIndex: number;
  moduleIndex: number;
  /** The shared location without extension, e.g. `src/pkg/util` for util.py and util/. */
  location: string;
  /** The name both would be imported as, e.g. `pkg.util`. */
  importName: string;
}

interface Claim {
  index: number;
  /** The node is the composite that stands for this module or package, so it is the one to name. */
  exact: boolean;
}

/**
 * Finds every place where one node's path makes a module (util.py) and another's a package (util/)
 * of the same name; Python can import only one of them. Linear in the number of nodes plus distinct
 * directories: each node's directories are walked up only until one already seen. `paths[i]` is node
 * i's path, or undefined when it failed checkFilePath. The node named on each side is the composite
 * standing for that module or package if there is one, otherwise the first in the list.
 */
export function findModulePackageClashes(paths: readonly (ImportablePath | undefined)[]): ModulePackageClash[] {
  const modules = new Map<string, Claim>();
  const packages = new Map<string, Claim>();
  /** True when `key` was not claimed before. */
  const claim = (claims: Map<string, Claim>, key: string, index: number, exact: boolean): boolean => {
    const held = claims.get(key);
    if (held === undefined) claims.set(key, { index, exact });
    else if (exact && !held.exact) claims.set(key, { index, exact });
    return held === undefined;
  };
  // Many nodes share a file; a later node with the same path and kind can change nothing.
  const seen = new Set<string>();
  paths.forEach((place, index) => {
    if (place === undefined) return;
    const key = `${place.kind}:${place.composite ? "c" : "l"}:${place.path}`;
    if (seen.has(key)) return;
    seen.add(key);
    let dir: string;
    let exact = false;
    if (place.kind === "package") {
      dir = packageDirectory(place.path);
      exact = true;
    } else {
      const normal = normalizePath(place.path);
      const slash = normal.lastIndexOf("/");
      if (normal.slice(slash + 1) !== "__init__.py") claim(modules, normal.slice(0, -".py".length), index, place.composite);
      dir = slash < 0 ? "" : normal.slice(0, slash);
    }
    // src/ is the import root of the src layout, not a package; once a directory is known, so are its parents.
    for (; dir !== "" && dir !== "src"; exact = false) {
      if (!claim(packages, dir, index, exact)) break;
      const slash = dir.lastIndexOf("/");
      dir = slash < 0 ? "" : dir.slice(0, slash);
    }
  });
  const clashes: ModulePackageClash[] = [];
  for (const [location, module] of modules) {
    const pkg = packages.get(location);
    if (pkg === undefined) continue;
    const importName = location.replace(/^src\//, "").replaceAll("/", ".");
    clashes.push({ packageIndex: pkg.index, moduleIndex: module.index, location, importName });
  }
  return clashes.sort((a, b) => a.packageIndex - b.packageIndex || (a.location < b.location ? -1 : 1));
}
