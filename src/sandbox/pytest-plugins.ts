import { distributionOf, normalizeDistribution } from "../rpg/requirements.js";
import { runPythonScript } from "../python-helpers/run-script.js";

// Lists installed pytest plugins (entry point group pytest11) with their distributions.
const LIST_PLUGINS = String.raw`
import importlib.metadata as m, json
out = []
for dist in m.distributions():
    for ep in dist.entry_points:
        if ep.group == "pytest11":
            out.append({"dist": dist.metadata["Name"], "name": ep.name})
print(json.dumps(out))
`;

/**
 * The pytest plugins to load for a package: those installed whose distribution the
 * package's requirements name ("hypothesis>=6" loads hypothesis's plugin). Every
 * other installed plugin stays off (see PytestRun.plugins).
 */
export async function pluginsFor(python: string, requirements: readonly string[]): Promise<string[]> {
  const wanted = new Set(requirements.map((r) => normalizeDistribution(distributionOf(r))).filter(Boolean));
  if (wanted.size === 0) return [];
  const installed = JSON.parse(await runPythonScript(python, LIST_PLUGINS)) as { dist: string; name: string }[];
  return installed
    .filter((p) => wanted.has(normalizeDistribution(p.dist)))
    .map((p) => p.name)
    .sort();
}
