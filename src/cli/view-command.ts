import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { RpgForgeError } from "../errors.js";
import { CodeViewer, type CodeTarget } from "../localize/code-view.js";
import { renderCodeView } from "../localize/render.js";
import type { Rpg } from "../rpg/schema.js";
import { terminalText } from "../report/terminal.js";
import { EXIT, printRunError, type CliIo } from "./output.js";
import { aboutFile, readRpgInput } from "./rpg-input.js";

/** Where a generated package keeps its RPG, with each node's status (EXPORTED_RPG_PATH in the engine). */
const PACKAGE_RPG = "docs/rpg.json";

interface ViewFlags {
  outline?: boolean;
  rpg?: string;
  symbol?: string;
  json?: boolean;
}

export function addViewCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("view")
    .description("show a node's code, or a Python file, as source or as an outline of signatures with docstring previews")
    .argument("<repo-dir>", "the generated repository (the --out of generate)")
    .argument("<target>", "a node id, or a .py file relative to <repo-dir>")
    .option("--outline", "signatures and one-line docstring previews instead of source")
    .option("--symbol <name>", "with a file: only this function or class (Class.method for a method)")
    .option("--rpg <file>", `the RPG, to view a node by id (default: <repo-dir>/${PACKAGE_RPG})`)
    .option("--json", "print the view as JSON")
    .addHelpText(
      "after",
      '\nA node whose code does not exist yet is shown as "not yet generated". Parses with python3 on PATH; nothing\n' +
        "is written. Exit codes: 0 shown, 2 bad input (no such directory or file, an unknown node id, a path outside the\nrepository).",
    )
    .action(async (repoDir: string, target: string, flags: ViewFlags) => {
      let rpgFile: string | undefined;
      try {
        if (!(await stat(repoDir).catch(() => undefined))?.isDirectory())
          throw new RpgForgeError(
            "INPUT_NOT_FOUND",
            "no such directory",
            { file: repoDir },
            "name the directory generate wrote (its --out)",
          );
        const isFile = /\.pyi?$/.test(target);
        let rpg: Rpg | undefined;
        // A file needs no RPG; a node id does, and then an RPG that does not load is the problem to report.
        if (flags.rpg !== undefined || !isFile) {
          rpgFile = flags.rpg ?? join(repoDir, PACKAGE_RPG);
          if (flags.rpg === undefined && !(await stat(rpgFile).catch(() => undefined)))
            throw new RpgForgeError(
              "INPUT_NOT_FOUND",
              `"${target}" is not a .py file, and a node id needs the RPG, which is not at ${rpgFile}`,
              { file: rpgFile },
              "pass --rpg <rpg.json>, or name a .py file of the repository",
            );
          rpg = await readRpgInput(rpgFile, io, setExit);
          if (!rpg) return;
        }
        const byNode = rpg !== undefined && (!isFile || rpg.nodes.some((n) => n.id === target));
        if (flags.symbol !== undefined && byNode) {
          io.err("error: --symbol goes with a file; a node id shows the node's own symbol\n");
          setExit(EXIT.badInput);
          return;
        }
        const what: CodeTarget = byNode
          ? { nodeId: target }
          : { file: target, ...(flags.symbol !== undefined ? { symbol: flags.symbol } : {}) };
        const viewer = new CodeViewer(repoDir, { python: "python3", ...(rpg ? { rpg } : {}) });
        const view = await viewer.view(what, { outline: flags.outline === true });
        if (view.kind === "missing" && !view.notGenerated) {
          // A file or symbol the user named that is not there is bad input; a node without code is an answer.
          if (view.absent === "file")
            throw new RpgForgeError(
              "INPUT_NOT_FOUND",
              `no such file in ${repoDir}`,
              { file: view.file },
              "name the file relative to the repository",
            );
          throw new RpgForgeError("LOCALIZE_UNKNOWN_SYMBOL", view.message, { file: view.file }, "`--outline` lists what the file defines");
        }
        io.out(flags.json ? `${JSON.stringify(view, null, 2)}\n` : terminalText(renderCodeView(view)));
      } catch (error) {
        setExit(printRunError(io, rpgFile ? aboutFile(error, rpgFile) : error));
      }
    });
}
