/**
 * The code application as it was before it became one request to the helper worker (decision 0018): the
 * multi-call path, kept as the oracle tests/engine/code-application.test.ts holds the one-request application to.
 * It is the TypeScript of src/engine/code-application.ts and of organizeImports in src/assembly/imports.ts as they
 * stood then, with the TypeScript edits of src/workspace/python-edit.ts; nothing in src/ uses it.
 */
import { askImportScript, type ImportStatement } from "../../src/assembly/python-imports.js";
import { importFor, usedNames, withoutSelfImports } from "../../src/assembly/imports.js";
import { checkCode } from "../../src/engine/proposals.js";
import { reviewImplementation } from "../../src/review/reply-review.js";
import type { RpgNode } from "../../src/rpg/schema.js";
import { symbolKindOf } from "../../src/rpg/symbol-kind.js";
import { addImports, memberCode, replaceMember, replaceSymbol } from "../../src/workspace/python-edit.js";
import { outlinePython, type TopLevelStatement } from "../../src/workspace/python-outline.js";
import { readSupportCode } from "../../src/workspace/support-code.js";

export type Applied = { ok: true; source: string } | { ok: false; reason: string };

/** What one application needs to know of the node and its run. */
export interface OracleInput {
  python: string;
  node: RpgNode;
  owner: { name: string } | undefined;
  module: string;
  implFile: string;
  dependencies: RpgNode[];
  methods: string[];
  localPackages: string[];
  registrars: { name: string; path: string }[];
  before: string;
  imports: string[];
  code: string;
  support: string;
  proposed: boolean;
}

type ImportGroup = "future" | "stdlib" | "third_party" | "local";

const GROUP_ORDER: readonly ImportGroup[] = ["future", "stdlib", "third_party", "local"];

/** The organized source; `reason` says why it was left unchanged when it could not be organized. */
interface OrganizedImports {
  source: string;
  changed: boolean;
  reason?: string;
}

/** One statement of the new block, with the comment lines that travel with it. */
interface Unit {
  statement: ImportStatement;
  comments: string[];
  text: string;
}

/**
 * Rewrites the leading import block of a module in PEP 8 order: __future__, standard
 * library, third party, local, one blank line between groups, then two blank lines
 * before a def or class (one before other code). Within a group statements sort by
 * module name, case-insensitively (`import x` before `from x import y` on a tie);
 * relative imports come last in the local group. Comment lines in the block move with
 * the import below them, so none is lost; a trailing comment stays with its line,
 * except on a line holding several statements (`import a; import b  # c`), which is
 * split and loses the comment. Extra lines are added unless every name they bind is
 * already imported at top level, or is imported inside the functions that use it and read
 * nowhere else as the module's name: an import the code put in a function (often to avoid
 * a cycle) stays there, and is not repeated at the top. CRLF line ends become LF.
 */
export async function oldOrganizeImports(
  python: string,
  source: string,
  localPackages: readonly string[],
  extra: readonly string[] = [],
): Promise<OrganizedImports> {
  const unchanged = (reason?: string): OrganizedImports => ({ source, changed: false, ...(reason === undefined ? {} : { reason }) });
  const text = source.replace(/\r\n/g, "\n");
  const wanted = extra.map((line) => line.trim()).filter((line) => line !== "");
  const scan = await askImportScript(python, { mode: "block", source: text, extra: wanted });
  if (!scan.ok) return unchanged(`imports not organized: ${scan.message}`);

  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const firstStatement = scan.imports[0]?.start ?? (scan.next.start || lines.length + 1);
  const headEnd = scan.docstringEnd > 0 ? scan.docstringEnd : headerEnd(lines, firstStatement - 1);
  const units = unitsOf(lines, headEnd, scan.imports);
  if (typeof units === "string") return unchanged(`imports not organized: ${units}`);
  const added = newExtras(scan.extras, scan.present, scan.localOnly);
  if (units.length === 0 && added.length === 0) return unchanged();

  const stdlib = await stdlibNames(python);
  const block = renderBlock([...withoutRepeats(units), ...added], localPackages, stdlib);
  const head = lines.slice(0, headEnd);
  while (head.length > 0 && head.at(-1)!.trim() === "") head.pop();
  const tail = lines.slice(scan.imports.at(-1)?.end ?? headEnd);
  while (tail.length > 0 && tail[0]!.trim() === "") tail.shift();
  const gap = scan.next.kind === "def" ? ["", ""] : [""];
  const result = `${[...head, ...(head.length > 0 ? [""] : []), ...block, ...(tail.length > 0 ? gap : []), ...tail].join("\n")}\n`;
  if (result === source) return unchanged();
  const outline = await outlinePython(python, result);
  if (!outline.ok) return unchanged(`imports not organized: the result would not parse (line ${outline.line}: ${outline.message})`);
  return { source: result, changed: true };
}

/**
 * Without a docstring, how many lines stay above the imports: a shebang and coding
 * cookie (they only work on lines 1–2), and a leading comment block set off by a blank
 * line, which is a file header rather than a note on the first import.
 */
function headerEnd(lines: readonly string[], limit: number): number {
  let end = 0;
  while (end < Math.min(2, limit) && /^#!|^#.*coding[:=]/.test(lines[end]!)) end++;
  let next = end;
  while (next < limit && lines[next]!.startsWith("#")) next++;
  return next > end && next < limit && lines[next]!.trim() === "" ? next : end;
}

/** The block's statements with the comment lines above each; a description of the problem if a line is neither. */
function unitsOf(lines: readonly string[], headEnd: number, imports: readonly ImportStatement[]): Unit[] | string {
  const units: Unit[] = [];
  let line = headEnd + 1;
  for (const statement of imports) {
    const comments: string[] = [];
    for (; line < statement.start; line++) {
      const content = lines[line - 1]!.trim();
      if (content.startsWith("#")) comments.push(content);
      else if (content !== "") return `line ${line} sits in the import block but is neither an import nor a comment`;
    }
    const text = statement.shared ? statement.segment : lines.slice(statement.start - 1, statement.end).join("\n");
    units.push({ statement, comments, text });
    line = Math.max(line, statement.end + 1);
  }
  return units;
}

/** The block without a second copy of a statement; a copy with comments of its own is kept, so nothing a person wrote is lost. */
function withoutRepeats(units: readonly Unit[]): Unit[] {
  const seen = new Set<string>();
  return units.filter((unit) => {
    const key = unit.text.replace(/\s+/g, " ").trim();
    const repeat = seen.has(key) && unit.comments.length === 0;
    seen.add(key);
    return !repeat;
  });
}

/**
 * Extra statements that bind a name not yet imported the same way (`from m import x` is there when `from m import x, y` is),
 * other than names only the functions that import them read.
 */
function newExtras(extras: readonly ImportStatement[], present: readonly string[], localOnly: readonly string[]): Unit[] {
  const bound = new Set(present);
  const local = new Set(localOnly);
  const added: Unit[] = [];
  for (const statement of extras) {
    if (statement.keys.every((key) => bound.has(key)) || statement.binds.every((name) => local.has(name))) continue;
    for (const key of statement.keys) bound.add(key);
    added.push({ statement, comments: [], text: statement.segment });
  }
  return added;
}

function renderBlock(units: readonly Unit[], localPackages: readonly string[], stdlib: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const group of GROUP_ORDER) {
    const members = units.filter((unit) => groupOf(unit.statement, localPackages, stdlib) === group);
    if (members.length === 0) continue;
    if (out.length > 0) out.push("");
    for (const unit of members.sort(compareUnits)) out.push(...unit.comments, unit.text);
  }
  return out;
}

function groupOf(statement: ImportStatement, localPackages: readonly string[], stdlib: ReadonlySet<string>): ImportGroup {
  if (statement.level > 0) return "local";
  const isFrom = statement.keys[0]?.startsWith("from ") ?? false;
  // `import __future__` is an ordinary module; only `from __future__ import` is a future statement.
  if (isFrom && statement.module === "__future__") return "future";
  const top = statement.module.split(".")[0]!;
  // The package's own name wins over a standard-library module of the same name.
  if (localPackages.includes(top)) return "local";
  return stdlib.has(top) ? "stdlib" : "third_party";
}

function compareUnits(a: Unit, b: Unit): number {
  const key = (u: Unit): string[] => {
    const module = ".".repeat(u.statement.level) + u.statement.module;
    return [u.statement.level > 0 ? "1" : "0", module.toLowerCase(), module, u.statement.keys[0]?.startsWith("from ") ? "1" : "0", u.text];
  };
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
  return 0;
}

// One probe per interpreter, as it was.
const stdlibCache = new Map<string, Promise<ReadonlySet<string>>>();

function stdlibNames(python: string): Promise<ReadonlySet<string>> {
  let names = stdlibCache.get(python);
  if (!names) stdlibCache.set(python, (names = askImportScript(python, { mode: "stdlib" }).then((reply) => new Set(reply.names))));
  return names;
}

function placeSupportCode(source: string, start: number, end: number, support: { before: string[]; after: string[] }): string {
  if (support.before.length === 0 && support.after.length === 0) return source;
  const lines = source.replace(/\n$/, "").split("\n");
  const block = (parts: string[]): string[] => parts.flatMap((p, i) => [...(i > 0 ? ["", ""] : []), ...p.split("\n")]);
  const head = lines.slice(0, start - 1);
  const symbol = lines.slice(start - 1, end);
  const tail = lines.slice(end);
  const before = support.before.length > 0 ? [...block(support.before), "", ""] : [];
  const after = support.after.length > 0 ? ["", "", ...block(support.after)] : [];
  return `${[...head, ...before, ...symbol, ...after, ...tail].join("\n")}\n`;
}

/** CodeApplication.apply as it was: the module it would write, or its refusal. */
export async function oldApply(input: OracleInput): Promise<Applied> {
  const { python, node, owner, code, support, proposed, before } = input;
  let imports = input.imports;
  const review = (lines: readonly string[]) =>
    Promise.all([
      proposed ? reviewImplementation(python, code, lines.join("\n"), { support, registrars: input.registrars }) : undefined,
      outlinePython(python, lines.join("\n")),
    ]);
  const [filtered, codeOutline, extra, outline, edgeImports, asProposed] = await Promise.all([
    withoutSelfImports(python, imports, {
      module: input.module,
      isPackage: /(^|\/)__init__\.py$/.test(input.implFile),
      source: before,
      names: [owner?.name ?? node.name],
    }),
    outlinePython(python, code),
    readSupportCode(python, support, node.name),
    outlinePython(python, before),
    edgeImportsOf(input),
    review(imports),
  ]);
  const selfImported = filtered.length !== imports.length || filtered.some((line, i) => line !== imports[i]);
  imports = filtered;
  const [reviewed, importsOutline] = selfImported ? await review(imports) : asProposed;
  if (reviewed && !reviewed.ok) return { ok: false, reason: `the review refused the code: ${reviewed.reason}` };
  const verdict = checkCode(node, codeOutline, importsOutline);
  if (!verdict.ok) return verdict;
  if (!extra.ok) return { ok: false, reason: `the support code was refused: ${extra.problems.slice(0, 3).join("; ")}` };
  if (!outline.ok)
    return { ok: false, reason: `${input.implFile} does not parse before the edit: line ${outline.line}: ${outline.message}` };
  const taken = new Set(outline.statements.flatMap((st) => st.names ?? (st.name ? [st.name] : [])).filter((name) => name !== node.name));
  const clashes = extra.names.filter((name) => taken.has(name) || name === node.name);
  if (clashes.length > 0)
    return { ok: false, reason: `the support code defines ${clashes.join(", ")}, which ${input.implFile} already has; choose other names` };
  const put = await putSymbol(input, before, outline.statements, code);
  if (!put.ok) return put;
  const swappedOutline = await outlinePython(python, put.source);
  const holder = owner?.name ?? node.name;
  const symbol = swappedOutline.ok ? swappedOutline.statements.find((st) => st.name === holder) : undefined;
  const replaced = symbol ? placeSupportCode(put.source, symbol.start, symbol.end, extra) : put.source;
  const replacedOutline = replaced === put.source ? swappedOutline : await outlinePython(python, replaced);
  if (!replacedOutline.ok)
    return { ok: false, reason: `the edited file would not parse: line ${replacedOutline.line}: ${replacedOutline.message}` };
  const organized = await oldOrganizeImports(python, replaced, input.localPackages, [...imports, ...edgeImports]);
  const after =
    organized.reason === undefined ? organized.source : addImports(replaced, replacedOutline.statements, [...imports, ...edgeImports]);
  if (organized.reason !== undefined) {
    const final = await outlinePython(python, after);
    if (!final.ok) return { ok: false, reason: `the edited file would not parse: line ${final.line}: ${final.message}` };
  }
  return { ok: true, source: after };
}

async function putSymbol(input: OracleInput, source: string, statements: TopLevelStatement[], code: string): Promise<Applied> {
  const { python, node, owner } = input;
  if (owner) {
    const klass = statements.find((st) => st.kind === "class" && st.name === owner.name);
    if (!klass) return { ok: false, reason: `class ${owner.name} is not in ${input.implFile} yet` };
    return { ok: true, source: replaceMember(source, klass, node.name, code) };
  }
  const methods = symbolKindOf(node) === "class" ? input.methods : [];
  if (methods.length > 0) {
    const proposed = await outlinePython(python, code);
    const own = proposed.ok ? (proposed.statements[0]?.members ?? []).filter((m) => methods.includes(m.name)) : [];
    if (own.length > 0)
      return {
        ok: false,
        reason: `${own.map((m) => m.name).join(", ")} ${own.length === 1 ? "is a node" : "are nodes"} of its own: leave it out of the class`,
      };
  }
  const old = statements.find((st) => st.kind === "class" && st.name === node.name);
  const carried = methods.flatMap((m) => {
    const text = old ? memberCode(source, old, m) : undefined;
    return text === undefined ? [] : [[m, text] as const];
  });
  let next = replaceSymbol(source, statements, node.name, code);
  for (const [name, text] of carried) {
    const outline = await outlinePython(python, next);
    const klass = outline.ok ? outline.statements.find((st) => st.kind === "class" && st.name === node.name) : undefined;
    if (klass) next = replaceMember(next, klass, name, text);
  }
  return { ok: true, source: next };
}

async function edgeImportsOf(input: OracleInput): Promise<string[]> {
  const deps = input.dependencies;
  const used = new Set(
    await usedNames(
      input.python,
      input.code,
      deps.map((d) => d.name),
    ),
  );
  return deps.filter((d) => used.has(d.name) && symbolKindOf(d) !== "method").flatMap((d) => importFor(d, input.node) ?? []);
}
