import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BUNDLE = join(ROOT, "dist", "index.js");

export interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/**
 * Runs the bundled Action the way the runner does: `node dist/index.js` with the
 * inputs as INPUT_* variables, the event in a file, and GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files for it to write. Asynchronous, so that a stand-in
 * server in this process can answer it.
 */
export function runAction(options: {
  workspace: string;
  runnerDir: string;
  inputs: Record<string, string>;
  event: { name: string; payload: unknown };
  env?: Record<string, string>;
}): Promise<ActionRun> {
  mkdirSync(options.runnerDir, { recursive: true });
  const eventPath = join(options.runnerDir, "event.json");
  const outputPath = join(options.runnerDir, "output.txt");
  const summaryPath = join(options.runnerDir, "summary.md");
  writeFileSync(eventPath, JSON.stringify(options.event.payload));
  writeFileSync(outputPath, "");
  writeFileSync(summaryPath, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: options.runnerDir,
    GITHUB_ACTIONS: "true",
    CI: "true",
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_EVENT_NAME: options.event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_WORKFLOW_REF: "octo/statkit/.github/workflows/rpg-generate.yml@refs/heads/main",
    RUNNER_TEMP: options.runnerDir,
    // A runner has no git identity of its own: the Action must bring one.
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    ...options.env,
  };
  for (const [name, value] of Object.entries(options.inputs)) env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] = value;
  return new Promise((resolve) => {
    execFile(process.execPath, [BUNDLE], { env, cwd: options.workspace, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({
        code,
        stdout,
        stderr,
        outputs: parseOutputs(readFileSync(outputPath, "utf8")),
        summary: readFileSync(summaryPath, "utf8"),
      });
    });
  });
}

/** The GITHUB_OUTPUT file format: `name<<delimiter`, the value's lines, `delimiter`. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!match) continue;
    const [, name, delimiter] = match;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i]!);
    outputs[name!] = value.join("\n");
  }
  return outputs;
}
