import { formatProblemLine } from "../errors.js";
import { code } from "../report/markdown.js";
import type { AppConfig } from "./config.js";

/** The commands, for `help` and for an unknown or malformed command (then `problem` leads). */
export function renderHelp(prefix: string, permission: AppConfig["permission"], problem?: string): string {
  const lines = problem === undefined ? [] : [`rpg-forge did not run that: ${problem}.`, ""];
  lines.push(
    "### rpg-forge commands",
    "",
    "Write one as the first line of a comment on an rpg-forge pull request or on an issue:",
    "",
    "| command | what it does |",
    "| --- | --- |",
    `| \`${prefix} retry [node...]\` | run the workflow again for the failed nodes, or for the nodes named |`,
    `| \`${prefix} revise <node...>\` | regenerate the nodes named; the rest of the comment is your note |`,
    `| \`${prefix} status\` | on a pull request, its node table; the latest report |`,
    `| \`${prefix} help\` | this list |`,
    "",
    `Commands need ${permission} access to the repository.`,
  );
  return lines.join("\n");
}

/** The answer to `status`: a link to the report comment, or that there is none yet. */
export function renderStatus(where: "pull request" | "issue", reportUrl: string | undefined, prefix: string): string {
  return reportUrl === undefined
    ? `rpg-forge has not reported on this ${where} yet. \`${prefix} retry\` starts a run.`
    : `The latest rpg-forge report on this ${where}: ${reportUrl}`;
}

/** The one refusal a person without the needed access gets on an issue or pull request. */
export function renderRefusal(login: string, permission: AppConfig["permission"]): string {
  return (
    `@${login}, thank you for asking. rpg-forge starts runs only for people with ${permission} access to this repository, ` +
    "since a run spends the repository's model key and pushes branches. A maintainer can run the command for you."
  );
}

/** Why a dispatch failed, naming what to fix. */
export function renderDispatchFailure(workflow: string, ref: string, status: number, message: string): string {
  return [
    `rpg-forge could not start the workflow \`${workflow}\` on \`${ref}\`: GitHub answered ${status} (${message}).`,
    "",
    `Check that \`.github/workflows/${workflow}\` exists on \`${ref}\` and has a \`workflow_dispatch\` trigger with rpg-forge's inputs, ` +
      "or name another file with `workflow` in `.github/rpg-forge.yml`.",
  ].join("\n");
}

/** Why a request started nothing: the repository's rpg-forge configuration cannot be read. */
export function renderConfigProblem(problem: string): string {
  return [
    "### rpg-forge cannot read this repository's configuration",
    "",
    `Nothing was started: ${problem.replace(/^APP_CONFIG_INVALID: /, "")}`,
    "",
    "Fix the file on the default branch ([the keys](https://github.com/rpg-forge/rpg-forge/blob/main/docs/configuration.md)), then ask again.",
  ].join("\n");
}

/** Why the graph an issue names was not used. */
export function renderRpgPathRefused(path: string, problem: string): string {
  return [
    "### rpg-forge: the RPG path in this issue is refused",
    "",
    `- ${code(formatProblemLine("APP_RPG_PATH_REFUSED", `rpg: ${path} ${problem}`, {}))}`,
    "",
    "Nothing was started. Correct the `rpg:` line, then remove the label and add it again.",
  ].join("\n");
}

/** Why the graph pasted into an issue was not committed, naming what to fix. */
export function renderRpgCommitRefused(path: string, branch: string, status: number, message: string): string {
  return [
    "### rpg-forge could not commit the RPG in this issue",
    "",
    `- ${code(formatProblemLine("APP_RPG_COMMIT_REFUSED", `${path} on ${branch}: GitHub answered ${status} (${message})`, {}))}`,
    "",
    "Nothing was started. The App needs contents write permission, a default branch with a commit, and no folder at that path; " +
      "name another path with an `rpg:` line, then remove the label and add it again.",
  ].join("\n");
}

/** What an earlier refusal of an issue's graph says once the issue asks for a graph rpg-forge takes. */
export function renderRpgAccepted(path: string, ref: string): string {
  return `rpg-forge took the RPG of this issue: ${code(path)} on ${code(ref)}. The problems listed here before are gone.`;
}

/** The answer to a request whose run started: what runs, for what, and the run when GitHub named it. */
export function renderStarted(mode: string, described: string, runUrl: string | undefined): string {
  const run = runUrl === undefined ? "its run is in this repository's Actions tab" : `[the run](${runUrl})`;
  return `rpg-forge started ${code(mode)} for ${described}: ${run}. Its results come here when it ends.`;
}

/** Why a request started nothing: a run already waits for the one in progress, and a new one would replace it. */
export function renderRunWaiting(described: string, runUrl: string): string {
  return (
    `rpg-forge did not start a run for ${described}: [a run](${runUrl}) is already waiting for the one in progress, ` +
    "and GitHub would cancel it for a new one. Ask again once it has started."
  );
}
