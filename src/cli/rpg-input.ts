import { RpgForgeError } from "../errors.js";
import { loadRpg } from "../rpg/load.js";
import type { Rpg } from "../rpg/schema.js";
import { EXIT, printIssues, type CliIo } from "./output.js";

/**
 * The RPG a read-only command works on, its warnings printed; undefined (and exit 2, with one line per problem)
 * when it does not load: search, deps and view look at a graph, they cannot repair one.
 */
export async function readRpgInput(file: string, io: CliIo, setExit: (code: number) => void): Promise<Rpg | undefined> {
  const loaded = await loadRpg(file);
  if (!loaded.ok) {
    printIssues(io, loaded.issues);
    io.err(`${file}: invalid; run \`rpg-forge validate ${file}\` for the problems\n`);
    setExit(EXIT.badInput);
    return undefined;
  }
  printIssues(io, loaded.warnings);
  return loaded.value;
}

/** An unknown node or subgraph id, naming the RPG it is not in: the id is a problem of the file the user gave. */
export function aboutFile(error: unknown, file: string): unknown {
  if (!(error instanceof RpgForgeError) || error.at.file !== undefined || !error.code.startsWith("LOCALIZE_UNKNOWN_")) return error;
  return new RpgForgeError(error.code, error.message, { ...error.at, file }, error.hint, { cause: error });
}
