/**
 * Bundles the Action's entry (src/action/index.ts) with everything it imports into
 * dist/index.js, the file action.yml runs: the runner does not install dependencies.
 * `--check` builds into memory and fails when the committed bundle differs, which is
 * how CI keeps dist/ in step with src/.
 */
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { ACTION_BUILD_OPTIONS } from "./action-build-options.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(root, "dist", "index.js");

const result = await build({
  absWorkingDir: root,
  entryPoints: [join(root, "src", "action", "index.ts")],
  ...ACTION_BUILD_OPTIONS,
  outfile,
  logLevel: "warning",
  // Some dependencies are CommonJS and call require() for Node's own modules, which an ES
  // module bundle does not have; give it one.
  banner: {
    js: 'import { createRequire as __rpgForgeCreateRequire } from "node:module";\nconst require = __rpgForgeCreateRequire(import.meta.url);',
  },
});
const bundle = result.outputFiles[0]!.text;

if (process.argv.includes("--check")) {
  const committed = await readFile(outfile, "utf8").catch(() => "");
  if (committed !== bundle) {
    console.error("dist/index.js is not the bundle of src/: run `npm run bundle` and commit dist/");
    process.exit(1);
  }
  console.log("dist/index.js is up to date");
} else {
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(outfile, bundle);
  console.log(`wrote dist/index.js (${Math.round(bundle.length / 1024)} KiB)`);
}
