import { Command, CommanderError } from "commander";
import { addDepsCommand } from "./deps-command.js";
import { addGenerateCommand } from "./generate-command.js";
import { EXIT, type CliIo } from "./output.js";
import { addPlanCommand } from "./plan-command.js";
import { addRollbackCommand } from "./rollback-command.js";
import { addSearchCommand } from "./search-command.js";
import { addStatusCommand } from "./status-command.js";
import { addValidateCommand } from "./validate-command.js";
import { addViewCommand } from "./view-command.js";

/** Runs the CLI on `argv` (without node and script) and returns the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const setExit = (code: number): void => {
    exitCode = code;
  };
  const program = new Command()
    .name("rpg-forge")
    .description("Turn a Repository Planning Graph (RPG) into a tested Python package.")
    .version(await packageVersion())
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  addValidateCommand(program, io, setExit);
  addPlanCommand(program, io, setExit);
  addStatusCommand(program, io, setExit);
  addGenerateCommand(program, io, setExit);
  addRollbackCommand(program, io, setExit);
  addSearchCommand(program, io, setExit);
  addDepsCommand(program, io, setExit);
  addViewCommand(program, io, setExit);
  for (const command of program.commands) command.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end parsing through the same path as usage errors.
      return error.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    }
    throw error;
  }
  return exitCode;
}

async function packageVersion(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
