import type { Command } from "commander";
import { loadRpg } from "../rpg/load.js";
import { EXIT, printIssues, type CliIo } from "./output.js";

export function addValidateCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("validate")
    .description("check an RPG file; exit 0 when valid, 2 with one line per problem when not")
    .argument("<rpg>", "path to the RPG JSON file")
    .option("--json", "print the problems as a JSON array on stdout")
    .action(async (file: string, options: { json?: boolean }) => {
      const loaded = await loadRpg(file);
      const issues = loaded.ok ? loaded.warnings : loaded.issues;
      if (options.json)
        io.out(
          `${JSON.stringify(
            issues.map(({ pointer: _pointer, ...issue }) => issue),
            null,
            2,
          )}\n`,
        );
      else printIssues(io, issues);
      if (!loaded.ok) {
        const errors = loaded.issues.filter((i) => i.severity === "error").length;
        if (!options.json) io.err(`${file}: ${errors} problem${errors === 1 ? "" : "s"}; nothing was generated\n`);
        setExit(EXIT.badInput);
        return;
      }
      const rpg = loaded.value;
      const subgraphs = new Set(rpg.nodes.map((n) => n.subgraph_id)).size;
      if (!options.json)
        io.out(
          `${file}: valid (${count(rpg.nodes.length, "node")}, ${count(rpg.edges.length, "edge")}, ${count(subgraphs, "subgraph")})\n`,
        );
    });
}

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;
