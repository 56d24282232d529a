import { spawn } from "node:child_process";
import { RpgForgeError } from "../errors.js";

/**
 * Runs one of rpg-forge's own Python helper scripts (`python -I -c script`) with
 * `input` on stdin and returns its stdout. The scripts only read source or package
 * metadata, never run generated code, so they need no sandbox; `-I` keeps a local
 * file named like a stdlib module from shadowing it, and the environment is PATH only.
 */
export async function runPythonScript(python: string, script: string, input = ""): Promise<string> {
  const child = spawn(python, ["-I", "-c", script], { stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  // A python that dies before reading its input must surface as its exit code, not an EPIPE crash.
  child.stdin.on("error", () => undefined);
  child.stdin.end(input, "utf8");
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", (error) =>
      reject(new RpgForgeError("SANDBOX_NO_PYTHON", `${python} does not start: ${error.message}`, {}, undefined, { cause: error })),
    );
    child.on("close", resolve);
  });
  if (code !== 0) {
    const said = stderr.trim().split("\n").at(-1) ?? "";
    throw new RpgForgeError(
      "SANDBOX_NO_PYTHON",
      `${python} failed running rpg-forge's helper script (exit ${code}): ${said}`,
      {},
      "check that python3 runs: python3 -c 'import ast'",
    );
  }
  return stdout;
}
