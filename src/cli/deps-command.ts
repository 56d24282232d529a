import type { Command } from "commander";
import { DependencyExplorer, renderDependencyTree } from "../localize/dependencies.js";
import { terminalText } from "../report/terminal.js";
import { printRunError, type CliIo } from "./output.js";
import { aboutFile, readRpgInput } from "./rpg-input.js";

export function addDepsCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("deps")
    .description("show what a node depends on and who depends on it, two hops each way, failed nodes marked")
    .argument("<rpg>", "path to the RPG JSON file (a generated package's docs/rpg.json carries each node's status)")
    .argument("<node-id>", "the node to look around")
    .option("--json", "print the neighbourhood as JSON instead of an ASCII tree")
    .addHelpText("after", "\nNothing is written. Exit codes: 0 shown, 2 bad input (an invalid RPG, an unknown node id).")
    .action(async (file: string, nodeId: string, options: { json?: boolean }) => {
      try {
        const rpg = await readRpgInput(file, io, setExit);
        if (!rpg) return;
        const view = new DependencyExplorer(rpg).explore(nodeId);
        io.out(options.json ? `${JSON.stringify(view, null, 2)}\n` : terminalText(renderDependencyTree(view)));
      } catch (error) {
        setExit(printRunError(io, aboutFile(error, file)));
      }
    });
}
