import { byCodeUnit } from "../rpg/code-unit-order.js";
import { distributionOf, normalizeDistribution } from "../rpg/requirements.js";
import { MARKER } from "./owned-file.js";

/**
 * The package's requirements: the nodes' own (as written) and, for third-party
 * imports found in the code that no node declared, a range around the version
 * installed where the tests ran (>=X.Y,<X+1), since that is the version they passed with.
 */
export function mergeRequirements(declared: readonly string[], scanned: ReadonlyMap<string, string | undefined>): string[] {
  const byName = new Map<string, string>();
  for (const requirement of declared) {
    const name = normalizeDistribution(distributionOf(requirement));
    if (name && !byName.has(name)) byName.set(name, requirement.trim());
  }
  for (const [distribution, version] of scanned) {
    const name = normalizeDistribution(distribution);
    if (byName.has(name)) continue;
    byName.set(name, version ? `${distribution}${versionRange(version)}` : distribution);
  }
  // By the normalized name: the same plan gives the same file on every machine.
  return [...byName.keys()].sort(byCodeUnit).map((name) => byName.get(name)!);
}

function versionRange(version: string): string {
  const [major, minor] = version.split(".").map((p) => Number.parseInt(p, 10));
  if (major === undefined || Number.isNaN(major)) return "";
  return `>=${major}.${Number.isNaN(minor ?? Number.NaN) ? 0 : minor},<${major + 1}`;
}

export function renderRequirements(requirements: readonly string[]): string {
  return [`# ${MARKER}: the packages the generated code imports.`, ...requirements, ""].join("\n");
}

export function renderDevRequirements(): string {
  return [`# ${MARKER}: what the tests need on top of requirements.txt.`, "-r requirements.txt", "pytest>=7", ""].join("\n");
}
