import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { pythonSetupOf, type PythonSetup } from "../../src/sandbox/python.js";

/**
 * The first python3 on PATH with pytest and coverage.py outside the user site, as the sandbox
 * runs it: Debian's python3 with python3-pytest and python3-coverage is one (.ci/run installs
 * them). The default python3 may lack coverage.py (a pyenv build, a pip-installed pytest).
 */
export function coveragePython(): Promise<PythonSetup> {
  // Once per process, up to the first python3 on PATH that has both: each test used to probe every one, a pyenv shim's
  // shell and pyenv's own among them (53 interpreters and 11 CPU-s of tests/sandbox/coverage.test.ts's 25).
  found ??= probeCoveragePython();
  return found;
}

let found: Promise<PythonSetup> | undefined;

function probeCoveragePython(): Promise<PythonSetup> {
  const candidates = (process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "python3"));
  for (const python of candidates) {
    const probe = spawnSync(python, ["-s", "-c", "import sys, coverage, pytest; print(sys.executable)"], { encoding: "utf8" });
    if (probe.status === 0) return pythonSetupOf(probe.stdout.trim());
  }
  return Promise.reject(new Error("no python3 on PATH has pytest and coverage.py (apt-get install python3-pytest python3-coverage)"));
}

/**
 * A python3 for which coverage.py is not installed: `real` run with a first sys.path entry
 * whose `coverage` module fails to import, as Python reports a missing one. A shell script, so
 * it has a path of its own (the probe caches by interpreter path).
 */
export function pythonWithoutCoverage(dir: string, real: PythonSetup): PythonSetup {
  const blocker = join(dir, "no-coverage");
  mkdirSync(blocker, { recursive: true });
  writeFileSync(join(blocker, "coverage.py"), 'raise ModuleNotFoundError("No module named \'coverage\'", name="coverage")\n');
  const script = join(dir, "python3");
  writeFileSync(script, `#!/bin/sh\nPYTHONPATH='${blocker}' exec '${real.executable}' "$@"\n`);
  chmodSync(script, 0o755);
  return { ...real, executable: script, runtimeDirs: [...real.runtimeDirs, dir] };
}
