import { basename } from "node:path";
import type { AssemblyResult } from "../assembly/assembly-result.js";
import { importCycles } from "../assembly/imports.js";
import { moduleDocstrings, withModuleDocstring } from "../assembly/docstrings.js";
import { packageApis, reexportOption, renderInitFile, renderInitWithCode, stripApiBlock } from "../assembly/init-files.js";
import { moduleOf, packageDirectories, testFiles } from "../assembly/layout.js";
import { isOurInit, isOurs } from "../assembly/owned-file.js";
import { consoleScripts, packageRoots, projectInfo, renderPyproject } from "../assembly/pyproject.js";
import { renderPackageReadme } from "../assembly/readme.js";
import { mergeRequirements, renderDevRequirements, renderRequirements } from "../assembly/requirements.js";
import { thirdPartyImports } from "../assembly/third-party.js";
import { normalizePath } from "../rpg/paths.js";
import type { Rpg } from "../rpg/schema.js";
import type { PytestResult } from "../sandbox/pytest.js";
import type { PackageFiles } from "../workspace/package-files.js";
import { outlinePython } from "../workspace/python-outline.js";
import type { Checkpoint } from "./checkpoint.js";
import { localPackagesOf } from "./tdd-setup.js";

export type { AssemblyResult };

/** Where assembly reads the package and writes what it derives: the output itself, or a snapshot laid over it. */
export type PackageView = Pick<PackageFiles, "root" | "read" | "write">;

export interface AssemblyOptions {
  rpg: Rpg;
  checkpoint: Checkpoint;
  files: PackageView;
  python: string;
  model: string;
  /** Runs the assembled package's suite (the passed nodes' test files). */
  runTests(targets: readonly string[]): Promise<PytestResult>;
}

const GITIGNORE = [
  "__pycache__/",
  "*.py[cod]",
  ".pytest_cache/",
  "*.egg-info/",
  "build/",
  "dist/",
  ".venv/",
  ".rpg-forge/",
  "test_results.xml",
];

/**
 * Turns the generated modules into a package people can install and test (PRD epic
 * 4.6): module and package docstrings from the composites, __init__.py with the
 * package's API in __all__ and __version__, pyproject.toml, requirements, a README, .gitignore
 * and docs/rpg.json with each node's status, then one run of the whole suite. Everything it
 * writes is derived from the checkpoint and the modules alone (no run id, clock or timing), so
 * that the same package assembles to the same bytes. Files a person wrote (no rpg-forge
 * marker) are never overwritten.
 */
export async function assemblePackage(options: AssemblyOptions): Promise<AssemblyResult> {
  const { rpg, checkpoint, files } = options;
  const statusOf = (id: string) => checkpoint.nodes[id]?.status;
  const passed = rpg.nodes.filter((n) => n.node_type === "leaf" && statusOf(n.id) === "passed");
  const passedIds = new Set(passed.map((n) => n.id));
  const info = projectInfo(rpg, basename(files.root));
  const warnings = [...info.warnings];
  const written: string[] = [];

  const write = async (rel: string, content: string, owned = true): Promise<void> => {
    if (owned && !isOurs(await files.read(rel))) {
      warnings.push(`${rel} was not written by rpg-forge, so it was left as it is`);
      return;
    }
    if (rel.endsWith(".py")) {
      const outline = await outlinePython(options.python, content);
      if (!outline.ok) throw new Error(`assembly produced ${rel} that does not parse (line ${outline.line}: ${outline.message})`);
    }
    await files.write(rel, content);
    written.push(rel);
  };

  // A docstring goes on top of a module's code, which stays byte for byte; one already there stays.
  const docstringed = async (source: string, docstring: string): Promise<string> => {
    const outline = await outlinePython(options.python, source);
    return withModuleDocstring(source, docstring, outline.ok && outline.statements[0]?.kind === "docstring");
  };
  // Only modules the loop wrote (a passed leaf lives there): any other file at that path is a person's.
  const generatedModules = new Set(passed.map((n) => normalizePath(n.file_path)));
  for (const [rel, docstring] of moduleDocstrings(rpg)) {
    if (!generatedModules.has(rel)) continue;
    const source = await files.read(rel);
    if (source === undefined) continue;
    const content = await docstringed(source, docstring);
    if (content !== source) await write(rel, content, false);
  }
  const reexport = reexportOption(rpg);
  warnings.push(...reexport.warnings);
  const api = packageApis(rpg, passed, packageDirectories(rpg), {
    reexport: reexport.reexport,
    version: info.version,
    description: info.description,
  });
  warnings.push(...api.warnings);
  for (const pkg of api.apis) {
    const rel = `${pkg.dir}/__init__.py`;
    const existing = await files.read(rel);
    if (pkg.holdsCode) {
      // The RPG placed leaves in this __init__.py: it is a module the loop generated, so it is
      // ours, and its code is kept as it is, with the API appended.
      const source = existing ?? "";
      const content = renderInitWithCode(pkg, await docstringed(stripApiBlock(source), pkg.docstring));
      if (content !== source) await write(rel, content, false);
    } else if (isOurInit(existing)) {
      await write(rel, renderInitFile(pkg), false);
    } else {
      warnings.push(`${rel} was not written by rpg-forge, so it was left as it is`);
    }
  }
  const modules = new Map<string, string>();
  for (const node of passed) {
    const source = await files.read(normalizePath(node.file_path));
    if (source !== undefined) modules.set(moduleOf(node.file_path), source);
  }
  const local = localPackagesOf(rpg);
  const requirements = mergeRequirements(
    passed.flatMap((n) => n.requirements ?? []),
    await thirdPartyImports(options.python, modules, local),
  );
  const cycles = await importCycles(options.python, modules, new Set(packageDirectories(rpg).map((dir) => moduleOf(`${dir}/__init__.py`))));
  await write("pyproject.toml", renderPyproject(info, requirements, packageRoots(rpg), consoleScripts(rpg, passedIds, info.name)));
  await write("requirements.txt", renderRequirements(requirements));
  await write("requirements-dev.txt", renderDevRequirements());
  await write("README.md", renderPackageReadme(rpg, info, statusOf));
  await write(".gitignore", mergedGitignore(await files.read(".gitignore")), false);
  const exported = {
    ...rpg,
    metadata: {
      ...rpg.metadata,
      generation: { model: options.model },
    },
    nodes: rpg.nodes.map((n) => ({ ...n, status: statusOf(n.id) ?? "pending" })),
  };
  await write("docs/rpg.json", `${JSON.stringify(exported, null, 2)}\n`, false);

  // Each node's test file, and the integration tests of the subgraphs done (decision 0024).
  const integrationFiles = Object.values(options.checkpoint.integration ?? {}).flatMap((r) => (r.file ? [r.file] : []));
  const suiteFiles = [...new Set([...passed.map((n) => testFiles(rpg).get(n.id)!), ...integrationFiles])].sort();
  let suite: AssemblyResult["suite"];
  let junitXml: string | undefined;
  if (suiteFiles.length > 0) {
    const result = await options.runTests(suiteFiles);
    junitXml = result.junitXml;
    const failed = result.tests.filter((t) => t.status === "failed" || t.status === "error").length;
    suite = {
      exitCode: result.exitCode,
      passed: result.tests.filter((t) => t.status === "passed").length,
      failed,
      total: result.tests.length,
    };
  }
  return { warnings, written, importCycles: cycles, suite, junitXml };
}

/** The user's .gitignore with the entries a generated package needs added at the end. */
function mergedGitignore(existing: string | undefined): string {
  const lines = (existing ?? "").split("\n").filter((l, i, all) => l !== "" || i < all.length - 1);
  const missing = GITIGNORE.filter((entry) => !lines.some((l) => l.trim() === entry));
  if (missing.length === 0 && existing !== undefined) return existing;
  return `${[...lines, ...(lines.length > 0 ? [""] : []), "# Added by rpg-forge", ...missing].join("\n")}\n`;
}
