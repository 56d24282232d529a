import type { Command } from "commander";
import { rollbackTo } from "../workspace/git.js";
import { printRunError, type CliIo } from "./output.js";

export function addRollbackCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("rollback")
    .description("put the output's branch back at the last completed subgraph (uncommitted work is stashed, not lost)")
    .argument("<dir>", "the output directory of generate")
    .option("--to <subgraph>", "the subgraph to go back to (default: the last one completed)")
    .action(async (dir: string, options: { to?: string }) => {
      try {
        const result = await rollbackTo(dir, options.to);
        io.out(
          `Rolled back to ${result.tag} (${result.sha.slice(0, 7)}); ${result.undone.length} later commit${result.undone.length === 1 ? "" : "s"} undone.\n`,
        );
        if (result.stash) io.out(`Uncommitted changes were stashed as ${result.stash}; git stash pop brings them back.\n`);
        io.out(`Continue with: rpg-forge generate <rpg.json> --out ${dir} --resume\n`);
      } catch (error) {
        setExit(printRunError(io, error));
      }
    });
}
