import { z } from "zod";
import { runPythonScript } from "../python-helpers/run-script.js";
import type { Coverage } from "../record/coverage.js";
import type { PythonSetup } from "./python.js";

/**
 * coverage.py's own analysis of a module, out of the sandbox and without running it: its
 * statements and branch exits come from parsing a copy of the module taken before the
 * tests ran, and only the arcs come from the run. Every line counts: the package's
 * configuration is not read, and "pragma: no cover" or "no branch" comments exclude nothing.
 */
const ANALYZE = String.raw`
import json, sys

request = json.load(sys.stdin)
# The helper worker runs python -I: a coverage.py installed with pip install --user is found through these,
# for this import only. The worker's later calls (the plugin list reads sys.path) see its path as it was.
saved = list(sys.path)
sys.path.extend(entry for entry in request["userSitePath"] if entry not in sys.path)
try:
    import coverage
finally:
    sys.path[:] = saved

path = request["path"]
measure = coverage.Coverage(data_file=None, branch=True, config_file=False)
# Cleared, then a pattern that matches nothing: some versions read an empty list as "every line".
for which in ("exclude", "partial"):
    measure.clear_exclude(which=which)
    measure.exclude("(?!)", which=which)
measure.get_data().add_arcs({path: [tuple(arc) for arc in request["arcs"]]})
analysis = measure._analyze(path)
stats = analysis.branch_stats()
print(json.dumps({
    "statements": sorted(analysis.statements),
    "missing": sorted(analysis.missing),
    "branches": sorted([line, exits, taken] for line, (exits, taken) in stats.items()),
}))
`;

const AnalysisSchema = z.object({
  statements: z.array(z.int().min(1)),
  missing: z.array(z.int().min(1)),
  /** [line, its exits, the exits the tests took] per line that branches. */
  branches: z.array(z.tuple([z.int().min(1), z.int().min(0), z.int().min(0)])),
});
export type Analysis = z.infer<typeof AnalysisSchema>;

/**
 * coverage.py's analysis of `path` (a private copy of the module) given the arcs a run recorded. It parses, never
 * runs, the module, so it goes to the long-lived helper workers like the outlines: a python3 of its own and
 * coverage.py's import cost more than the rest of the node's engine work. Throws when coverage.py fails.
 */
export async function analyzeArcs(python: PythonSetup, path: string, arcs: readonly (readonly [number, number])[]): Promise<Analysis> {
  const stdout = await runPythonScript(python.executable, ANALYZE, JSON.stringify({ path, arcs, userSitePath: python.userSitePath }));
  return AnalysisSchema.parse(JSON.parse(stdout));
}

/** The analysis restricted to the node's lines (1-based, inclusive ranges). */
export function countOnRanges(analysis: Analysis, ranges: readonly (readonly [number, number])[]): Coverage {
  const onRanges = (line: number): boolean => ranges.some(([start, end]) => line >= start && line <= end);
  const statements = new Set(analysis.statements.filter(onRanges));
  const missing = new Set(analysis.missing.filter((line) => statements.has(line)));
  const branches = { covered: 0, total: 0 };
  for (const [line, exits, taken] of analysis.branches) {
    if (!onRanges(line)) continue;
    branches.total += exits;
    branches.covered += Math.min(taken, exits);
  }
  return { lines: { covered: statements.size - missing.size, total: statements.size }, branches };
}
