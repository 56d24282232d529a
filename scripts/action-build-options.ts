import type { BuildOptions } from "esbuild";

/**
 * How esbuild bundles the Action (scripts/bundle-action.ts), in one place, so that what measures the
 * bundle's cost of a dependency (bench/python-parsing-bench.ts) bundles it the same way.
 */
export const ACTION_BUILD_OPTIONS = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  // ES builds first: some packages (jsonc-parser) ship a UMD "main" whose require() calls a bundle cannot follow.
  mainFields: ["module", "main"],
  write: false,
  legalComments: "eof",
} as const satisfies BuildOptions;
