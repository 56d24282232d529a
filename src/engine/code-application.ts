import { importFor, isStdlib, missingNames, organizeImports, withoutSelfImports } from "../assembly/imports.js";
import { moduleOf } from "../assembly/layout.js";
import type { NodePromptContext } from "../llm/requests/node-context.js";
import { helperFailed } from "../python-helpers/run-script.js";
import { implementationRequest, reviewImplementation, scriptVerdict, textVerdict } from "../review/reply-review.js";
import type { RpgNode } from "../rpg/schema.js";
import { symbolKindOf } from "../rpg/symbol-kind.js";
import type { PytestResult } from "../sandbox/pytest.js";
import { stubFor } from "../workspace/python-edit.js";
import { applyInPython } from "./application-script.js";
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

  /** The symbol's definition as last accepted, without its support code; undefined before the first. */
  get acceptedCode(): string | undefined {
    return this.accepted?.code;
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

  /** The module back as it was before the last proposal: its stub in place, the other nodes' code as it was. */
  async revert(): Promise<void> {
    if (this.baseline !== undefined) await this.setup.files.write(this.implFile, this.baseline);
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
    // Both calls go together, in one round trip; the organized module is written only if the review accepts.
    const { code, support } = this.accepted ?? { code: "", support: "" };
    const source = (await this.setup.files.read(this.implFile)) ?? "";
    const [reviewed, organized] = await Promise.all([
      reviewImplementation(this.setup.python, code, lines.join("\n"), { support, registrars: this.registrars() }),
      organizeImports(this.setup.python, source, this.setup.localPackages, lines),
    ]);
    if (!reviewed.ok || !organized.changed || organized.reason !== undefined) return [];
    await this.setup.files.write(this.implFile, organized.source);
    return lines;
  }

  private async apply(imports: string[], code: string, support: string, proposed: boolean): Promise<Applied> {
    const python = this.setup.python;
    const before = (proposed ? this.baseline : undefined) ?? (await this.setup.files.read(this.implFile)) ?? "";
    const isPackage = /(^|\/)__init__\.py$/.test(this.implFile);
    const reviewOf = (lines: readonly string[]) =>
      proposed ? implementationRequest(code, lines.join("\n"), { support, registrars: this.registrars() }) : null;
    // A reply that is not text never reaches Python: the text checks refuse it here. They see the imports
    // as applied, so where there are imports to filter, the refusal waits for the filter.
    let filtered = false;
    const asProposed = reviewOf(imports);
    if (asProposed && textVerdict(asProposed)) {
      if (imports.length > 0) {
        // A name the module defines needs no import: importing it is an import of the module by itself,
        // which fails at load time. A package's __init__.py keeps `from pkg import submodule`.
        imports = await withoutSelfImports(python, imports, {
          module: this.prompt.module,
          isPackage,
          source: before,
          names: [this.holder],
        });
        filtered = true;
      }
      const refused = textVerdict(reviewOf(imports)!);
      if (refused) return { ok: false, reason: `the review refused the code: ${refused.reason}` };
    }
    // One round trip: the filter, the review, the outlines, the support code, the edit and the import block.
    const reply = await applyInPython(python, {
      file: this.implFile,
      before,
      code,
      imports,
      filtered,
      support,
      symbol: this.node.name,
      owner: this.owner?.name ?? null,
      module: this.prompt.module,
      isPackage,
      // A method is reached through its class, never imported by its own name.
      dependencies: this.setup
        .dependenciesOf(this.node)
        .map((dep) => [dep.name, symbolKindOf(dep) === "method" ? null : (importFor(dep, this.node) ?? null)]),
      methods: symbolKindOf(this.node) === "class" ? this.setup.methodsOf(this.node) : [],
      localPackages: this.setup.localPackages,
      review: reviewOf(imports),
    });
    const review = reviewOf(reply.imports);
    const reviewed = review && (textVerdict(review) ?? scriptVerdict(reply.review!));
    if (reviewed && !reviewed.ok) return { ok: false, reason: `the review refused the code: ${reviewed.reason}` };
    const verdict = checkCode(this.node, reply.codeOutline, reply.importsOutline);
    if (!verdict.ok) return verdict;
    if (reply.failed !== undefined || !reply.applied)
      throw helperFailed(python, 1, reply.failed ?? "the code application returned nothing");
    if (!reply.applied.ok) return reply.applied;
    await this.setup.files.write(this.implFile, reply.applied.source);
    if (proposed) {
      this.accepted = { code, support };
      this.owned = [this.owner ? `${this.owner.name}.${this.node.name}` : this.node.name, ...reply.supportNames];
    }
    return { ok: true };
  }

  /** The top-level statement that holds the node's symbol: its class, for a method. */
  private get holder(): string {
    return this.owner?.name ?? this.node.name;
  }
}
