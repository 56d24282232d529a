import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadAll } from "js-yaml";
import { z } from "zod";

/** Where a repository keeps its rpg-forge settings (Probot's `context.config("rpg-forge.yml")` reads the same file). */
export const DEFAULT_CONFIG_PATH = ".github/rpg-forge.yml";

/** A value as a message quotes it: strings in quotes, long ones cut, lists and mappings by kind. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

/** One message for every way a value can be wrong, so the user reads what is expected and what they wrote. */
const expecting = (what: string) => (issue: { input?: unknown }) => `must be ${what} (got ${shown(issue.input)})`;

const text = (what: string) => z.string({ error: expecting(what) }).min(1, { error: expecting(what) });

const wholeNumber = (min: number, max: number) => {
  const error = expecting(`a whole number from ${min} to ${max}`);
  return z.int({ error }).min(min, { error }).max(max, { error });
};

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: expecting(`one of ${values.map((v) => `"${v}"`).join(", ")}`) });

// Paths as git and the contents API name them: relative to the repository root, never leaving it.
const repoPath = text("a path inside the repository, like rpg.json").refine(
  (path) => !/^([a-zA-Z]:)?[\\/]/.test(path) && !path.split(/[\\/]/).includes(".."),
  { error: expecting("a path inside the repository, like rpg.json") },
);

/**
 * `.github/rpg-forge.yml`: what the GitHub App watches and how it is asked, and the Action's defaults where a
 * dispatch or the workflow leaves an input empty. Every key is optional; a key the schema does not know is an
 * error, so a misspelt one is reported instead of silently ignored. docs/configuration.md describes each key.
 */
export const RepoConfigSchema = z.strictObject({
  rpg: z
    .array(repoPath, { error: expecting("a list of RPG paths, like [rpg.json]") })
    .min(1, { error: expecting("a list of at least one RPG path") })
    .default(["rpg.json"]),
  label: text("an issue label").default("generate"),
  command: z
    .string({ error: expecting('a command prefix without spaces, like "/rpg"') })
    .regex(/^\S+$/, { error: expecting('a command prefix without spaces, like "/rpg"') })
    .default("/rpg"),
  // The dispatch API takes the workflow's file name in .github/workflows, not a path.
  workflow: z
    .string({ error: expecting("a workflow file name in .github/workflows, like rpg-generate.yml") })
    .regex(/^[^/\\\s]+\.ya?ml$/, { error: expecting("a workflow file name in .github/workflows, like rpg-generate.yml") })
    .default("rpg-generate.yml"),
  permission: oneOf(["write", "maintain", "admin"]).default("write"),
  push: oneOf(["generate", "nothing"]).default("generate"),
  model: text("a model name").optional(),
  "max-iterations": wholeNumber(1, 50).optional(),
  "diagnosis-votes": wholeNumber(1, 9).optional(),
  mutants: wholeNumber(0, 10).optional(),
  "integration-tests": z.boolean({ error: expecting("true or false") }).optional(),
  "fix-tools": z.boolean({ error: expecting("true or false") }).optional(),
  review: z.boolean({ error: expecting("true or false") }).optional(),
  concurrency: wholeNumber(1, 16).optional(),
  "base-branch": text("a branch name").optional(),
});

export type RepoConfig = z.infer<typeof RepoConfigSchema>;

/** The keys of the file, in the order docs/configuration.md lists them. */
export const REPO_CONFIG_KEYS = Object.keys(RepoConfigSchema.shape) as (keyof RepoConfig)[];

/** A problem with the file: `key` names the setting (`rpg[1]` for an entry of a list), or is "" for the file as a whole. */
export interface RepoConfigProblem {
  key: string;
  message: string;
  file: string;
  line?: number;
  column?: number;
}

export type RepoConfigResult = { ok: true; config: RepoConfig } | { ok: false; problems: RepoConfigProblem[] };

/** What the Action read: the config (the defaults when there is no file), or every problem with the file. */
export type RepoConfigRead =
  { ok: true; config: RepoConfig; found: boolean; warnings: RepoConfigProblem[] } | { ok: false; problems: RepoConfigProblem[] };

/**
 * `key: message`, or for the file as a whole `file line N, column C: message`: the line every edge shows
 * (the Action in its annotations and failure, the App in its comment or check run).
 */
export function describeConfigProblem(problem: RepoConfigProblem): string {
  if (problem.key) return `${problem.key}: ${problem.message}`;
  const at = problem.line !== undefined ? ` line ${problem.line}${problem.column !== undefined ? `, column ${problem.column}` : ""}` : "";
  return `${problem.file}${at}: ${problem.message}`;
}

/**
 * Checks the settings of a parsed file (as Probot's `context.config` hands them over: `null` when there is
 * no file). Every problem is reported at once, by key; nothing throws.
 */
export function parseRepoConfig(data: unknown, file: string): RepoConfigResult {
  if (data === null || data === undefined) return { ok: true, config: RepoConfigSchema.parse({}) };
  if (typeof data !== "object" || Array.isArray(data)) {
    return {
      ok: false,
      problems: [{ key: "", file, message: `must be a mapping of settings, like "label: generate" (got ${shown(data)})` }],
    };
  }
  const parsed = RepoConfigSchema.safeParse(data);
  if (parsed.success) return { ok: true, config: parsed.data };
  const problems: RepoConfigProblem[] = [];
  const seen = new Set<string>();
  const add = (key: string, message: string) => {
    if (seen.has(`${key}\n${message}`)) return;
    seen.add(`${key}\n${message}`);
    problems.push({ key, message, file });
  };
  for (const issue of parsed.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add(key, unknownKeyMessage(key));
    } else {
      add(keyOf(issue.path), issue.message);
    }
  }
  return { ok: false, problems };
}

/**
 * Reads `.github/rpg-forge.yml` (or `file`) under `dir`, the Action's checkout. No file means the defaults; a
 * file that is not YAML, or holds a wrong setting, gives problems with the file and, where known, the line.
 */
export async function readRepoConfig(dir: string, file: string = DEFAULT_CONFIG_PATH): Promise<RepoConfigRead> {
  const path = join(dir, file);
  const problem = (message: string, at: { line?: number; column?: number } = {}): RepoConfigRead => ({
    ok: false,
    problems: [{ key: "", file, message, ...at }],
  });
  let source: string;
  try {
    // The App reads the file through the API, which does not follow a symbolic link; neither does the Action.
    if ((await lstat(path)).isSymbolicLink()) return problem("is a symbolic link; rpg-forge reads only a regular file");
    source = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: true, config: RepoConfigSchema.parse({}), found: false, warnings: [] };
    return problem(`cannot be read: ${(error as Error).message}`);
  }
  let documents: unknown[];
  try {
    documents = loadAll(source, { filename: file });
  } catch (error) {
    const { reason, mark } = error as { reason?: string; mark?: { line: number; column: number } };
    const at = mark ? { line: mark.line + 1, column: mark.column + 1 } : {};
    return problem(`not valid YAML: ${reason ?? (error as Error).message}`, at);
  }
  if (documents.length > 1) return problem(`holds ${documents.length} YAML documents (separated by ---); it must hold one`);
  const data = documents[0];
  const warnings: RepoConfigProblem[] = [];
  let settings = data;
  if (data !== null && typeof data === "object" && !Array.isArray(data) && "_extends" in data) {
    // Probot follows _extends (settings shared from another repository) and removes the key; the Action has
    // only this checkout, so it uses this file's own settings and says so.
    const { _extends: _ignored, ...own } = data as Record<string, unknown>;
    settings = own;
    warnings.push({
      key: "_extends",
      file,
      line: lineOfKey(source, "_extends"),
      message: "the Action reads only this file: settings it takes from another repository apply to the App, not to the Action",
    });
  }
  const parsed = parseRepoConfig(settings, file);
  if (!parsed.ok) {
    const located = parsed.problems.map((p) => ({ ...p, line: p.key ? lineOfKey(source, p.key.replace(/\[.*$/, "")) : p.line }));
    // In the file's order, so that the list reads alongside the file.
    return { ok: false, problems: located.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity)) };
  }
  return { ok: true, config: parsed.config, found: true, warnings };
}

function keyOf(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : `${i > 0 ? "." : ""}${String(part)}`)).join("");
}

function unknownKeyMessage(key: string): string {
  const near = REPO_CONFIG_KEYS.find((known) => editDistance(known, key.toLowerCase()) <= 2);
  return near ? `unknown setting; did you mean ${near}?` : `unknown setting (the settings are ${REPO_CONFIG_KEYS.join(", ")})`;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The line of a top-level key in a block mapping (1-based), for an annotation there; undefined in flow style. */
function lineOfKey(source: string, key: string): number | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^(["']?)${escaped}\\1\\s*:`);
  const index = source.split(/\r?\n/).findIndex((line) => pattern.test(line));
  return index === -1 ? undefined : index + 1;
}
