import { spawnSync } from "node:child_process";

/**
 * What a generated package's own suite runs with, as a person runs it, less the machine's third-party pytest plugins:
 * pytest loads every installed one on each run (hypothesis took 1.9 s of a 2.5 s run on a test machine), and no
 * generated package uses one. The engine's gates load only the plugins a package's requirements name.
 */
export function suiteEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1", ...extra };
}

/** pytest in a directory, as a person runs it there: its exit code, the tests that passed (by pytest id) and its output. */
export function packageSuiteIn(python: string, dir: string): { code: number | null; passed: string[]; output: string } {
  const result = spawnSync(python, ["-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider"], {
    cwd: dir,
    encoding: "utf8",
    env: suiteEnv({ PYTHONDONTWRITEBYTECODE: "1" }),
  });
  const passed = [...result.stdout.matchAll(/^PASSED (\S+)/gm)].map((m) => m[1]!).sort();
  return { code: result.status, passed, output: result.stdout + result.stderr };
}
