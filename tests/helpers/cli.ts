import { spawnSync } from "node:child_process";
import { main } from "../../src/cli/main.js";
import { nodeProgramArgs } from "./node-program.js";

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in this process, capturing what it writes. */
export async function runCli(...argv: string[]): Promise<CliResult> {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/** Runs the CLI as a real process, the way a user's shell does. */
export function spawnCli(args: string[], cwd = process.cwd()): CliResult {
  const result = spawnSync(process.execPath, nodeProgramArgs("src/cli/index.ts", ...args), {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: result.status ?? -1, out: result.stdout, err: result.stderr };
}
