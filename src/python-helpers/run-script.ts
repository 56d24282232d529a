import { RpgForgeError } from "../errors.js";
import { runInWorker } from "./worker.js";

/**
 * Runs one of rpg-forge's own Python helper scripts as `python -I -c script` would, with
 * `input` on stdin, and returns its stdout: in a long-lived worker (./worker.ts),
 * since a process per call cost more than the calls. The scripts only read source or
 * package metadata, never run generated code, so they need no sandbox; `-I` keeps a local
 * file named like a stdlib module from shadowing it, and the environment is PATH only.
 */
export async function runPythonScript(python: string, script: string, input = ""): Promise<string> {
  let result;
  try {
    result = await runInWorker(python, script, input);
  } catch (error) {
    throw new RpgForgeError("SANDBOX_NO_PYTHON", `${python} does not start: ${(error as Error).message}`, {}, undefined, { cause: error });
  }
  if (result.status !== 0) throw helperFailed(python, result.status, result.stderr.trim().split("\n").at(-1) ?? "");
  return result.stdout;
}

/** The error of a helper script that failed: its exit status and the last line it wrote (the exception, for a traceback). */
export function helperFailed(python: string, status: number | null, said: string): RpgForgeError {
  return new RpgForgeError(
    "SANDBOX_NO_PYTHON",
    `${python} failed running rpg-forge's helper script (exit ${status}): ${said}`,
    {},
    "check that python3 runs: python3 -c 'import ast'",
  );
}
