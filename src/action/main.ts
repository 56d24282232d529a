import { isAbsolute, join, relative } from "node:path";
import * as core from "@actions/core";
import { DEFAULT_CONFIG_PATH, describeConfigProblem, readRepoConfig, type RepoConfigProblem } from "../config/repo-config.js";
import { RpgForgeError, formatProblemLine } from "../errors.js";
import { buildPlan, type Plan } from "../plan/plan.js";
import { code } from "../report/markdown.js";
import { loadRpgWithText } from "../rpg/load.js";
import { readContext } from "./context.js";
import { credentialsFor, useFreshToken } from "./credentials.js";
import { runGeneration } from "./generate-mode.js";
import { readInputs } from "./inputs.js";
import { annotation, reportInvalidRpg } from "./invalid-rpg.js";
import { runReport } from "./report-mode.js";
import { runRestack } from "./restack-mode.js";
import { planSummary } from "./summaries.js";
import { matrixWaves } from "../engine/matrix.js";

/**
 * The Action: translates the runner's inputs and event into calls of the engine,
 * and the engine's results into git pushes, pull requests, comments, the job
 * summary and outputs. Nothing here decides how a node is generated.
 */
export async function run(): Promise<void> {
  try {
    const context = await readContext();
    const config = await readRepoConfig(context.workspace);
    if (!config.ok) return await reportInvalidConfig(config.problems);
    for (const warning of config.warnings) core.warning(describeConfigProblem(warning), configAnnotation(warning));
    const inputs = readInputs(config.config);
    if (inputs.githubToken) core.setSecret(inputs.githubToken);
    if (inputs.appPrivateKey) core.setSecret(inputs.appPrivateKey);
    const credentials = credentialsFor(inputs, context);
    await useFreshToken(inputs, credentials, (token) => core.setSecret(token));
    // Relative paths (the RPG's, and the engine's notion of its folder) are the workspace's, as in a step's `run:`.
    process.chdir(context.workspace);
    const rpgFile = isAbsolute(inputs.rpgPath) ? inputs.rpgPath : join(context.workspace, inputs.rpgPath);
    const rpgPath = relative(context.workspace, rpgFile);
    const { loaded, text } = await loadRpgWithText(rpgFile);
    if (!loaded.ok) return await reportInvalidRpg(loaded.issues, rpgPath, inputs.githubToken, context, inputs.issue);
    for (const warning of loaded.warnings) core.warning(warning.message, annotation(warning, rpgPath));
    const plan = buildPlan(loaded.value);
    setPlanOutputs(plan, matrixWaves(plan, loaded.value));
    const rpg = { rpg: loaded.value, rpgFile, rpgPath, text, plan };
    if (inputs.mode === "plan") await core.summary.addRaw(planSummary(plan, rpgPath)).write();
    else if (inputs.mode === "report") await runReport(inputs, context, rpg, credentials);
    else if (inputs.mode === "restack") await runRestack(inputs, context, rpg);
    else await runGeneration(inputs, context, rpg, credentials, config.config.command);
  } catch (error) {
    if (error instanceof RpgForgeError) {
      core.setFailed(`${formatProblemLine(error.code, error.message, error.at)}${error.hint ? `\n  hint: ${error.hint}` : ""}`);
    } else {
      core.setFailed((error as Error).message);
    }
  }
}

/** Each problem as an annotation on the config file (on its line where known), the list in the summary, and a failed job. */
async function reportInvalidConfig(problems: readonly RepoConfigProblem[]): Promise<void> {
  for (const problem of problems) core.error(describeConfigProblem(problem), configAnnotation(problem));
  const file = problems[0]?.file ?? DEFAULT_CONFIG_PATH;
  const listed = problems.map((p) => `- ${code(describeConfigProblem(p))}`);
  await core.summary.addRaw([`### rpg-forge: ${code(file)} is invalid`, "", "Nothing was run.", "", ...listed].join("\n")).write();
  core.setFailed([`${file} is invalid, nothing was run:`, ...problems.map((p) => `  ${describeConfigProblem(p)}`)].join("\n"));
}

function configAnnotation(problem: RepoConfigProblem): core.AnnotationProperties {
  return {
    title: "rpg-forge configuration",
    file: problem.file,
    ...(problem.line !== undefined ? { startLine: problem.line } : {}),
    ...(problem.column !== undefined ? { startColumn: problem.column } : {}),
  };
}

function setPlanOutputs(plan: Plan, inWaves: string[][]): void {
  const planned = {
    order: plan.order,
    subgraphs: plan.subgraphs.map(({ id, name, nodes, dependsOn, wave }) => ({ id, name, nodes, dependsOn, wave })),
  };
  core.setOutput("plan", JSON.stringify(planned));
  core.setOutput("waves", JSON.stringify(inWaves));
  core.setOutput("wave-count", inWaves.length);
}
