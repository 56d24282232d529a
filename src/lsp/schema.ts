import { z } from "zod";

/*
 * What code intelligence answers, one schema per shape: the debug loop hands these to the model as tool results (and
 * cassettes record them), the report renders the dependency check. Lines and columns are 1-based; columns count
 * UTF-16 code units, as the language server protocol does (the same as characters outside the astral planes).
 */

/** Which implementation answered: the language server, or Python's own parser standing in for it. */
export { BackendSchema, type Backend } from "../record/dependency-check.js";
import type { Backend } from "../record/dependency-check.js";

export const SymbolKindSchema = z.enum(["function", "class", "method", "variable"]);

export const SymbolMatchSchema = z.object({
  name: z.string(),
  qualname: z.string().describe("`Class.method` for a member, the name itself at module level."),
  kind: SymbolKindSchema,
  file: z.string().describe("POSIX path relative to the repository root."),
  line: z.int().min(1).describe("The line of `def`/`class` (or of the assigned name)."),
  column: z.int().min(1).describe("The column of the name."),
  startLine: z.int().min(1).describe("The first line, decorators included."),
  endLine: z.int().min(1),
  signature: z.string().describe("The header as written, from `def`/`class` to its colon."),
  docstring: z.string().nullable(),
  preview: z.string().describe("The first lines of the definition as written, decorators included."),
});
export type SymbolMatch = z.infer<typeof SymbolMatchSchema>;

export const ReferenceSchema = z.object({
  file: z.string(),
  line: z.int().min(1),
  column: z.int().min(1),
  kind: z.enum(["call", "import", "reference"]).describe("call: the name is called right there."),
  text: z.string().describe("The line, trimmed."),
  enclosing: z
    .object({ qualname: z.string(), kind: SymbolKindSchema, line: z.int().min(1) })
    .nullable()
    .describe("The innermost definition the reference is written in; null at module level."),
});
export type Reference = z.infer<typeof ReferenceSchema>;

// The dependency check's shape lives in the foundation: the checkpoint records it and the report renders it.
export { DependencyCheckSchema, type DependencyCheck } from "../record/dependency-check.js";

/** What an edit did: the files it wrote and the lines of the new code, or why it wrote nothing. */
export type EditOutcome =
  | { ok: true; via: Backend; files: string[]; lines?: [number, number]; warnings: string[] }
  | {
      ok: false;
      via: Backend;
      code: EditRefusalCode;
      message: string;
      /** Where: the edited file's line that does not parse, a clashing name's line, or the candidates of an ambiguous name. */
      at: { file: string; line: number | null }[];
      warnings: string[];
    };

/** Why an edit wrote nothing. These are results, not run errors: the debug loop shows them to the model. */
export type EditRefusalCode =
  | "LSP_SYMBOL_NOT_FOUND"
  | "LSP_SYMBOL_AMBIGUOUS"
  | "LSP_EDIT_EMPTY"
  | "LSP_EDIT_DOES_NOT_PARSE"
  | "LSP_FILE_DOES_NOT_PARSE"
  | "LSP_RENAME_INVALID_NAME"
  | "LSP_RENAME_COLLISION"
  | "LSP_RENAME_REFUSED";
