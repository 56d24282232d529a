import { importFor, isStdlib, missingNames, organizeImports, usedNames, withoutSelfImports } from "../assembly/imports.js";
import { moduleOf } from "../assembly/layout.js";
import type { NodePromptContext } from "../llm/requests/node-context.js";
import { reviewImplementation } from "../review/reply-review.js";
import type { RpgNode } from "../rpg/schema.js";
import { symbolKindOf } from "../rpg/symbol-kind.js";
import type { PytestResult } from "../sandbox/pytest.js";
import { addImports, memberCode, replaceMember, replaceSymbol, stubFor } from "../workspace/python-edit.js";
import { outlinePython, type TopLevelStatement } from "../workspace/python-outline.js";
import { placeSupportCode, readSupportCode } from "../workspace/support-code.js";
import { checkCode } from "./proposals.js";
import type { TddSetup } from "./tdd-setup.js";

export type Applied = { ok: true } | { ok: false; reason: string };

/** The package's own function a support code statement may call at import, by name and dotted path. */
export interface Registrar {
  name: string;
  path: string;
}

/**
 * Puts one node's code into its module (step 3 of decision 0004): the symbol replaced in
 * its file, with its support code around it, the imports it needs organized, and nothing
 * else changed. What the engine writes here is what the gates test and what ships; a
 * proposal any check refuses writes nothing.
 */
export class CodeApplication {
  /** The module with the node's stub in place: every proposal is applied to this, so an import a failed attempt added does not outlive it. */
  private baseline: string | undefined;
  /** The last accepted code and support code, apart, as the review takes them; undefined before the first. */
  private accepted: { code: string; support: string } | undefined;
  /** The top-level names the node's accepted code defines in its module: its symbol and its support code's. */
  private owned: string[] = [];
  private readonly owner: { name: string; signature: string } | undefined;

  constructor(
    private readonly setup: TddSetup,
    private readonly node: RpgNode,
    private readonly prompt: NodePromptContext,
    private readonly implFile: string,
  ) {
    this.owner = prompt.owner;
  }

  /** What the model last proposed, as the fix prompt and the failure context show it: support code above the symbol. */
  get lastCode(): string | undefined {
    if (!this.accepted) return undefined;
    const { code, support } = this.accepted;
    return support.trim() === "" ? code : `${support.trimEnd()}\n\n\n${code}`;
  }

  get owns(): string[] {
    return this.owned;
  }

  /** The node's stub in its module, for the red gate; the module as it then reads becomes the baseline of every proposal. */
  async placeStub(): Promise<Applied> {
    this.baseline = undefined;
    const stubbed = await this.apply([], stubFor(this.node.name, symbolKindOf(this.node)), "", false);
    if (stubbed.ok) this.baseline = await this.setup.files.read(this.implFile);
    return stubbed;
  }

  /** A proposal applied to the baseline, so that a fix's support code replaces the last attempt's rather than adding to it. */
  propose(imports: string[], code: string, support: string): Promise<Applied> {
    return this.apply(imports, code, support, true);
  }

  /** The package's own functions support code may call at import to register its helpers: the node's dependencies and its own symbol. */
  registrars(): Registrar[] {
    const own = { name: this.node.name, path: `${this.prompt.module}.${this.node.name}` };
    return [
      own,
      ...this.setup.dependenciesOf(this.node).map((dep) => ({ name: dep.name, path: `${moduleOf(dep.file_path)}.${dep.name}` })),
    ];
  }

  /**
   * A NameError for a dependency or a standard-library module is a missing import, not a
   * wrong implementation: the import lines added, or none when there is nothing to add.
   */
  async addMissingImports(result: PytestResult): Promise<string[]> {
    const { names } = missingNames(result.output);
    if (names.length === 0) return [];
    const lines: string[] = [];
    for (const dep of this.setup.dependenciesOf(this.node))
      if (names.includes(dep.name) && symbolKindOf(dep) !== "method") lines.push(...(importFor(dep, this.node) ?? []));
    for (const name of names) if (await isStdlib(this.setup.python, name)) lines.push(`import ${name}`);
    if (lines.length === 0) return [];
    // An import the engine adds is held to the review like one the model proposed (no `import signal` by the back door).
    const { code, support } = this.accepted ?? { code: "", support: "" };
    if (!(await reviewImplementation(this.setup.python, code, lines.join("\n"), { support, registrars: this.registrars() })).ok) return [];
    const source = (await this.setup.files.read(this.implFile)) ?? "";
    const organized = await organizeImports(this.setup.python, source, this.setup.localPackages, lines);
    if (!organized.changed || organized.reason !== undefined) return [];
    await this.setup.files.write(this.implFile, organized.source);
    return lines;
  }

  private async apply(imports: string[], code: string, support: string, proposed: boolean): Promise<Applied> {
    const python = this.setup.python;
    const before = (proposed ? this.baseline : undefined) ?? (await this.setup.files.read(this.implFile)) ?? "";
    // The checks that need only the reply and the module as it is go to the helpers at once: the
    // worker pool sends calls made together in one round trip.
    const review = (lines: readonly string[]) =>
      Promise.all([
        proposed ? reviewImplementation(python, code, lines.join("\n"), { support, registrars: this.registrars() }) : undefined,
        outlinePython(python, lines.join("\n")),
      ]);
    const [filtered, codeOutline, extra, outline, edgeImports, asProposed] = await Promise.all([
      // A name the module defines needs no import: importing it is an import of the module by itself,
      // which fails at load time. A package's __init__.py keeps `from pkg import submodule`.
      withoutSelfImports(python, imports, {
        module: this.prompt.module,
        isPackage: /(^|\/)__init__\.py$/.test(this.implFile),
        source: before,
        names: [this.owner?.name ?? this.node.name],
      }),
      outlinePython(python, code),
      readSupportCode(python, support, this.node.name),
      outlinePython(python, before),
      this.edgeImports(code),
      // Reviewed with the imports as proposed, in the same round trip; asked again in the rare case that
      // some were imports of the module by itself, so that the review sees what is applied.
      review(imports),
    ]);
    const selfImported = filtered.length !== imports.length || filtered.some((line, i) => line !== imports[i]);
    imports = filtered;
    const [reviewed, importsOutline] = selfImported ? await review(imports) : asProposed;
    if (reviewed && !reviewed.ok) return { ok: false, reason: `the review refused the code: ${reviewed.reason}` };
    const verdict = checkCode(this.node, codeOutline, importsOutline);
    if (!verdict.ok) return verdict;
    if (!extra.ok) return { ok: false, reason: `the support code was refused: ${extra.problems.slice(0, 3).join("; ")}` };
    if (!outline.ok)
      return { ok: false, reason: `${this.implFile} does not parse before the edit: line ${outline.line}: ${outline.message}` };
    const taken = new Set(
      outline.statements.flatMap((st) => st.names ?? (st.name ? [st.name] : [])).filter((name) => name !== this.node.name),
    );
    const clashes = extra.names.filter((name) => taken.has(name) || name === this.node.name);
    if (clashes.length > 0)
      return {
        ok: false,
        reason: `the support code defines ${clashes.join(", ")}, which ${this.implFile} already has; choose other names`,
      };
    const put = await this.putSymbol(before, outline.statements, code);
    if (!put.ok) return put;
    const swappedOutline = await outlinePython(python, put.source);
    // Support code goes around the top-level statement that holds the symbol: the class, for a method.
    const holder = this.owner?.name ?? this.node.name;
    const symbol = swappedOutline.ok ? swappedOutline.statements.find((st) => st.name === holder) : undefined;
    const replaced = symbol ? placeSupportCode(put.source, symbol.start, symbol.end, extra) : put.source;
    // The same text parses the same: without support code to place, the outline at hand is the one.
    const replacedOutline = replaced === put.source ? swappedOutline : await outlinePython(python, replaced);
    if (!replacedOutline.ok)
      return { ok: false, reason: `the edited file would not parse: line ${replacedOutline.line}: ${replacedOutline.message}` };
    // The model's imports plus those the RPG's edges imply for dependencies the code
    // uses, in PEP 8 order; where the block cannot be reordered, they are only added.
    const organized = await organizeImports(python, replaced, this.setup.localPackages, [...imports, ...edgeImports]);
    const after =
      organized.reason === undefined ? organized.source : addImports(replaced, replacedOutline.statements, [...imports, ...edgeImports]);
    // organizeImports parses what it returns (and returns the parsed `replaced` when it changes nothing): only the
    // fallback's text is new.
    if (organized.reason !== undefined) {
      const final = await outlinePython(python, after);
      if (!final.ok) return { ok: false, reason: `the edited file would not parse: line ${final.line}: ${final.message}` };
    }
    await this.setup.files.write(this.implFile, after);
    if (proposed) {
      this.accepted = { code, support };
      this.owned = [this.owner ? `${this.owner.name}.${this.node.name}` : this.node.name, ...extra.names];
    }
    return { ok: true };
  }

  /**
   * The module with the node's symbol in place: a function, class or constant replaces its
   * top-level statement; a method goes into its class. A class keeps the methods its method
   * nodes put into it, so that regenerating the class does not take them away.
   */
  private async putSymbol(
    source: string,
    statements: TopLevelStatement[],
    code: string,
  ): Promise<{ ok: true; source: string } | { ok: false; reason: string }> {
    if (this.owner) {
      const klass = statements.find((st) => st.kind === "class" && st.name === this.owner!.name);
      if (!klass) return { ok: false, reason: `class ${this.owner.name} is not in ${this.implFile} yet` };
      return { ok: true, source: replaceMember(source, klass, this.node.name, code) };
    }
    const methods = symbolKindOf(this.node) === "class" ? this.setup.methodsOf(this.node) : [];
    if (methods.length > 0) {
      const proposed = await outlinePython(this.setup.python, code);
      const own = proposed.ok ? (proposed.statements[0]?.members ?? []).filter((m) => methods.includes(m.name)) : [];
      if (own.length > 0)
        return {
          ok: false,
          reason: `${own.map((m) => m.name).join(", ")} ${own.length === 1 ? "is a node" : "are nodes"} of its own: leave it out of the class`,
        };
    }
    const old = statements.find((st) => st.kind === "class" && st.name === this.node.name);
    const carried = methods.flatMap((m) => {
      const text = old ? memberCode(source, old, m) : undefined;
      return text === undefined ? [] : [[m, text] as const];
    });
    let next = replaceSymbol(source, statements, this.node.name, code);
    for (const [name, text] of carried) {
      const outline = await outlinePython(this.setup.python, next);
      const klass = outline.ok ? outline.statements.find((st) => st.kind === "class" && st.name === this.node.name) : undefined;
      if (klass) next = replaceMember(next, klass, name, text);
    }
    return { ok: true, source: next };
  }

  /** `from <module> import <name>` for each dependency in another module that the code uses. */
  private async edgeImports(code: string): Promise<string[]> {
    const deps = this.setup.dependenciesOf(this.node);
    const used = new Set(
      await usedNames(
        this.setup.python,
        code,
        deps.map((d) => d.name),
      ),
    );
    // A method is reached through its class, never imported by its own name.
    return deps.filter((d) => used.has(d.name) && symbolKindOf(d) !== "method").flatMap((d) => importFor(d, this.node) ?? []);
  }
}
