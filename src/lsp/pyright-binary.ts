import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The `pyright-langserver` script of the `pyright` package rpg-forge depends on, resolved from our own node_modules
 * (never a global install, whose version we would not know), and run with the node that runs us.
 */
export function pyrightLangserverScript(): string {
  const manifest = createRequire(import.meta.url).resolve("pyright/package.json");
  const bin = (JSON.parse(readFileSync(manifest, "utf8")) as { bin?: Record<string, string> }).bin?.["pyright-langserver"];
  if (!bin) throw new Error(`${manifest} names no pyright-langserver binary`);
  return join(dirname(manifest), bin);
}

/**
 * The server's whole environment. Pyright runs `python3` from PATH (or `python`) to learn the interpreter's search
 * paths, with the repository as its working directory; a PATH that names only a folder that does not exist keeps it
 * from running anything at all, so the server only ever reads files. Our own index resolves the repository's imports,
 * and its bundled typeshed stubs the standard library's. No token or key of ours reaches it either.
 */
export function serverEnvironment(script: string): NodeJS.ProcessEnv {
  return { PATH: join(dirname(script), "no-programs-here") };
}

/** Whether the pyright package resolves from here: not from a bundle shipped without node_modules (the Action's dist/). */
export function pyrightInstalled(): boolean {
  try {
    pyrightLangserverScript();
    return true;
  } catch {
    return false;
  }
}
