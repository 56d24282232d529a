import { normalizePath } from "../rpg/paths.js";
import type { Rpg } from "../rpg/schema.js";
import { moduleOf } from "./layout.js";
import { MARKER } from "./owned-file.js";

export interface ProjectInfo {
  name: string;
  version: string;
  description: string;
  /** What was filled with a placeholder, for the report and the terminal. */
  warnings: string[];
}

/** Name, version and description from the RPG's metadata, with placeholders (and a warning each) where it has none. */
export function projectInfo(rpg: Rpg, fallbackName: string): ProjectInfo {
  const warnings: string[] = [];
  const meta = rpg.metadata;
  let name = typeof meta.name === "string" ? meta.name : "";
  if (!name) {
    name = fallbackName;
    warnings.push(`the RPG's metadata has no "name"; the project is called "${name}" after the output directory`);
  }
  name = name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-_.]+|[-_.]+$/g, "") || "generated-package";
  let version = typeof meta.version === "string" ? meta.version : "";
  if (!version) {
    version = "0.1.0";
    warnings.push('the RPG\'s metadata has no "version"; using 0.1.0');
  }
  const description = typeof meta.description === "string" ? meta.description : "";
  if (!description) warnings.push('the RPG\'s metadata has no "description"; the README and pyproject.toml have none');
  return { name, version, description, warnings };
}

/** Where setuptools finds the packages: src/ for the src layout, the root for anything else. */
export function packageRoots(rpg: Rpg): string[] {
  const roots = new Set<string>();
  for (const node of rpg.nodes) roots.add(normalizePath(node.file_path).startsWith("src/") ? "src" : ".");
  return [...roots].sort();
}

/** A leaf `main` in a module `cli` or `__main__` is the command line: it becomes a console script named after the project. */
export function consoleScripts(rpg: Rpg, passed: ReadonlySet<string>, projectName: string): Record<string, string> {
  const entry = rpg.nodes.find(
    (n) => n.node_type === "leaf" && n.name === "main" && passed.has(n.id) && /(^|\/)(cli|__main__)\.py$/.test(normalizePath(n.file_path)),
  );
  return entry ? { [projectName]: `${moduleOf(entry.file_path)}:main` } : {};
}

/** pyproject.toml for the generated package (PEP 621 metadata, setuptools, the src layout). */
export function renderPyproject(
  info: ProjectInfo,
  dependencies: readonly string[],
  roots: readonly string[],
  scripts: Record<string, string>,
): string {
  const str = tomlString;
  const list = (items: readonly string[]): string => (items.length === 0 ? "[]" : `[\n${items.map((i) => `  ${str(i)},`).join("\n")}\n]`);
  const lines = [
    `# ${MARKER} from docs/rpg.json; edit the RPG and regenerate rather than this file.`,
    "[build-system]",
    'requires = ["setuptools>=64"]',
    'build-backend = "setuptools.build_meta"',
    "",
    "[project]",
    `name = ${str(info.name)}`,
    `version = ${str(info.version)}`,
    `description = ${str(info.description)}`,
    'readme = "README.md"',
    'requires-python = ">=3.9"',
    `dependencies = ${list(dependencies)}`,
    "",
    "[project.optional-dependencies]",
    'dev = ["pytest>=7"]',
    "",
  ];
  if (Object.keys(scripts).length > 0) {
    lines.push("[project.scripts]", ...Object.entries(scripts).map(([name, target]) => `${str(name)} = ${str(target)}`), "");
  }
  lines.push("[tool.setuptools.packages.find]", `where = ${JSON.stringify(roots)}`, "");
  return lines.join("\n");
}

const TOML_SHORT_ESCAPES: Record<string, string> = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A TOML basic string. TOML forbids the C0 controls other than tab and DEL there (JSON.stringify
 * leaves DEL raw), and a \u escape must name a Unicode scalar value, so a lone surrogate, which
 * JSON.stringify writes as \ud800, becomes U+FFFD.
 */
export function tomlString(text: string): string {
  const wellFormed = text.replace(LONE_SURROGATE, "\ufffd");
  // eslint-disable-next-line no-control-regex
  const escaped = wellFormed.replace(/[\u0000-\u001f\u007f"\\]/g, (c) => {
    if (c === '"' || c === "\\") return `\\${c}`;
    return TOML_SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  });
  return `"${escaped}"`;
}
