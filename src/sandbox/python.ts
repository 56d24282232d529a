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
   * site.getuserbase() when the user site is enabled. The sandbox's HOME is a fresh
   * directory, which would hide packages installed with `pip install --user` (pytest
   * itself, often); PYTHONUSERBASE points Python back at them.
   */
  userBase: string | undefined;
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

const PROBE = "import site, sys; print(sys.executable); print(site.getuserbase() if site.ENABLE_USER_SITE else '')";

async function resolvePython(): Promise<PythonSetup> {
  let lines: string[];
  try {
    const { stdout } = await run("python3", ["-c", PROBE], { timeout: PROBE_TIMEOUT_MS });
    lines = stdout.split("\n").map((line) => line.trim());
  } catch (error) {
    throw new RpgForgeError("SANDBOX_NO_PYTHON", `python3 does not run: ${lastLineOf(error)}`, {}, INSTALL_HINT, { cause: error });
  }
  const [executable = "", userBase = ""] = lines;
  if (!isAbsolute(executable)) {
    // sys.executable is empty when Python cannot tell where it lives (an embedded build).
    throw new RpgForgeError("SANDBOX_NO_PYTHON", `python3 reports no usable sys.executable ("${executable}")`, {}, INSTALL_HINT);
  }
  try {
    await run(executable, ["-m", "pytest", "--version"], { timeout: PROBE_TIMEOUT_MS });
  } catch (error) {
    throw new RpgForgeError("SANDBOX_NO_PYTHON", `pytest does not run with ${executable}: ${lastLineOf(error)}`, {}, INSTALL_HINT, {
      cause: error,
    });
  }
  return { executable, userBase: isAbsolute(userBase) ? userBase : undefined };
}

function lastLineOf(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message?: string };
  const text = stderr?.trim() || message || String(error);
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  // Python's last line ("No module named pytest") says more than the first.
  return lines.at(-1) ?? text;
}
