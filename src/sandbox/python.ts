import { execFile } from "node:child_process";
import { isAbsolute } from "node:path";
import { promisify } from "node:util";
import { RpgForgeError } from "../errors.js";

const run = promisify(execFile);

const INSTALL_HINT =
  "install Python 3 and pytest so that `python3 -m pytest --version` works on PATH (e.g. `apt-get install python3 python3-pytest` " +
  "or `python3 -m pip install pytest`)";

// A pyenv shim or a slow network home directory can take a while the first time.
const PROBE_TIMEOUT_MS = 30_000;

/** What runs pytest, as found with the normal environment. */
export interface PythonSetup {
  /** sys.executable: absolute, so no PATH or shim is needed in the sandbox. */
  executable: string;
  /**
   * The user site's entries of sys.path (`pip install --user` puts pytest there, often).
   * The gate runs Python with the user site off (`-s`), so that no `.pth` file there runs
   * at start-up and code cannot plant one for the next run; these go on PYTHONPATH
   * instead, as plain directories whose `.pth` files are not read.
   */
  userSitePath: string[];
  /**
   * Every directory the interpreter reads at start and for pytest: its prefixes and the
   * existing entries of sys.path. bubblewrap hides home directories and /opt (where
   * pyenv and the runners' tool cache keep Python) and mounts these back read-only.
   */
  runtimeDirs: string[];
}

let cached: Promise<PythonSetup> | undefined;

/**
 * Absolute path of the python3 interpreter (sys.executable), resolved once with the
 * normal env and cached; checks that `-m pytest --version` works. Throws
 * RpgForgeError SANDBOX_NO_PYTHON.
 */
export async function findPython(): Promise<string> {
  return (await findPythonSetup()).executable;
}

/** The interpreter and its user site, resolved once and cached like findPython. */
export function findPythonSetup(): Promise<PythonSetup> {
  // Resolved outside the sandbox: inside, PATH may lead to a shim (pyenv, asdf) that
  // needs HOME or its own variables, which the scrubbed env does not carry.
  cached ??= resolvePython().catch((error: unknown) => {
    cached = undefined; // a later call (after installing Python) may succeed
    throw error;
  });
  return cached;
}

const setups = new Map<string, Promise<PythonSetup>>();

/**
 * The setup of a given interpreter (absolute path), resolved once and cached like
 * findPythonSetup; for a measure that needs a module the default python3 may lack
 * (coverage.py). Throws RpgForgeError SANDBOX_NO_PYTHON when it cannot run pytest.
 */
export function pythonSetupOf(executable: string): Promise<PythonSetup> {
  if (!isAbsolute(executable)) return Promise.reject(new RangeError(`the interpreter must be an absolute path, got ${executable}`));
  let setup = setups.get(executable);
  if (!setup) {
    setup = layoutOf(executable).catch((error: unknown) => {
      setups.delete(executable);
      throw error;
    });
    setups.set(executable, setup);
  }
  return setup;
}

const PROBE = "import sys; print(sys.executable)";

// Run by the interpreter found: where pytest and the user site are, and what the interpreter reads.
const LAYOUT = String.raw`
import json, os, site, sys
import pytest
user = site.getuserbase() if site.ENABLE_USER_SITE else None
paths = [p for p in sys.path if p and os.path.isabs(p) and os.path.isdir(p)]
inside = lambda p, root: os.path.realpath(p).startswith(os.path.realpath(root) + os.sep)
dirs = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.path.realpath(sys.executable))]
dirs += paths + [os.path.dirname(os.path.dirname(os.path.realpath(pytest.__file__)))]
print(json.dumps({
    "userSitePath": [p for p in paths if user and inside(p, user)],
    "runtimeDirs": sorted(set(os.path.realpath(d) for d in dirs if os.path.isdir(d))),
}))
`;

async function resolvePython(): Promise<PythonSetup> {
  let executable: string;
  try {
    const { stdout } = await run("python3", ["-c", PROBE], { timeout: PROBE_TIMEOUT_MS });
    executable = stdout.trim();
  } catch (error) {
    throw new RpgForgeError("SANDBOX_NO_PYTHON", `python3 does not run: ${lastLineOf(error)}`, {}, INSTALL_HINT, { cause: error });
  }
  if (!isAbsolute(executable)) {
    // sys.executable is empty when Python cannot tell where it lives (an embedded build).
    throw new RpgForgeError("SANDBOX_NO_PYTHON", `python3 reports no usable sys.executable ("${executable}")`, {}, INSTALL_HINT);
  }
  return layoutOf(executable);
}

async function layoutOf(executable: string): Promise<PythonSetup> {
  try {
    const { stdout } = await run(executable, ["-c", LAYOUT], { timeout: PROBE_TIMEOUT_MS });
    const layout = JSON.parse(stdout) as Omit<PythonSetup, "executable">;
    return { executable, ...layout };
  } catch (error) {
    throw new RpgForgeError("SANDBOX_NO_PYTHON", `pytest does not run with ${executable}: ${lastLineOf(error)}`, {}, INSTALL_HINT, {
      cause: error,
    });
  }
}

function lastLineOf(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message?: string };
  const text = stderr?.trim() || message || String(error);
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  // Python's last line ("No module named pytest") says more than the first.
  return lines.at(-1) ?? text;
}
