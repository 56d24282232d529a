import { runPythonScript } from "../python-helpers/run-script.js";
import { isStdlib } from "./imports.js";
import { askImportScript } from "./python-imports.js";

// Which installed distribution provides each top-level module, and its version.
const DISTRIBUTIONS = String.raw`
import importlib.metadata as m, json, sys
wanted = json.loads(sys.stdin.read())
provided = m.packages_distributions()
out = {}
for module in wanted:
    for dist in provided.get(module, []):
        try:
            out[module] = [dist, m.version(dist)]
        except m.PackageNotFoundError:
            out[module] = [dist, None]
        break
print(json.dumps(out))
`;

/**
 * The third-party packages the generated code imports when it loads (neither the
 * standard library nor the package itself), as distribution -> installed version
 * (undefined when it is not installed here; the module name stands in for the
 * distribution then).
 */
export async function thirdPartyImports(
  python: string,
  modules: ReadonlyMap<string, string>,
  localPackages: readonly string[],
): Promise<Map<string, string | undefined>> {
  const graph = await askImportScript(python, { mode: "graph", modules: Object.fromEntries(modules) });
  const tops = new Set<string>();
  for (const imports of Object.values(graph.modules)) {
    for (const imp of imports ?? []) if (imp.level === 0 && imp.module) tops.add(imp.module.split(".")[0]!);
  }
  const candidates: string[] = [];
  for (const top of [...tops].sort())
    if (!localPackages.includes(top) && top !== "__future__" && !(await isStdlib(python, top))) candidates.push(top);
  if (candidates.length === 0) return new Map();
  const found = JSON.parse(await runPythonScript(python, DISTRIBUTIONS, JSON.stringify(candidates))) as Record<
    string,
    [string, string | null]
  >;
  return new Map(candidates.map((module) => [found[module]?.[0] ?? module, found[module]?.[1] ?? undefined]));
}
