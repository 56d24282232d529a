import { readFile, writeFile } from "node:fs/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { RpgSchema } from "../src/rpg/schema.js";

/** Where the generated schema lives; CI fails when it differs from what RpgSchema produces. */
export const SCHEMA_PATH = fileURLToPath(new URL("../docs/rpg.schema.json", import.meta.url));

/**
 * The JSON Schema of the RPG format as text, ready to write: generated from RpgSchema so
 * that the zod schema stays the one source of the shape. `io: "input"` describes what a
 * planner may write (fields with defaults are optional), not what the loader returns.
 */
export function renderRpgJsonSchema(): string {
  const { $schema, ...rest } = z.toJSONSchema(RpgSchema, { io: "input" });
  // No $id: the project has no canonical URL yet, and an invented one would look resolvable.
  const schema = { $schema, title: "rpg-forge Repository Planning Graph", ...rest };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** Writes docs/rpg.schema.json, or with `--check` only compares it; returns the exit code. */
export async function main(argv: readonly string[], path = SCHEMA_PATH): Promise<number> {
  const expected = renderRpgJsonSchema();
  if (argv.includes("--check")) {
    const actual = await readFile(path, "utf8").catch(() => undefined);
    if (actual === expected) return 0;
    const why = actual === undefined ? "does not exist" : "is out of date with src/rpg/schema.ts";
    process.stderr.write(`${relative(process.cwd(), path)} ${why}; run \`npm run schema\` and commit the result\n`);
    return 1;
  }
  await writeFile(path, expected);
  process.stdout.write(`wrote ${relative(process.cwd(), path)}\n`);
  return 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
