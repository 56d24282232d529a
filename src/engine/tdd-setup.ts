import { symbolKindOf } from "../rpg/symbol-kind.js";
import type { z } from "zod";
import { moduleOf, signatureOf, testFileLookup } from "../assembly/layout.js";
import type { ModelProvider } from "../llm/provider.js";
import type { RequestKeys } from "../llm/request-keys.js";
import type { NodePromptContext, ReviewerNote } from "../llm/requests/node-context.js";
import { strictJsonSchema } from "../llm/structured.js";
import type { Plan } from "../plan/plan.js";
import type { Rpg, RpgNode } from "../rpg/schema.js";
import type { CoverageMeasure } from "../sandbox/coverage.js";
import type { PytestResult } from "../sandbox/pytest.js";
import type { ArtifactStore } from "../workspace/artifacts.js";
import type { PackageFiles } from "../workspace/package-files.js";
import type { FixLocalization } from "./fix-context.js";

/** PRD epic 4.5: five rounds of diagnosis, three of which decide. */
export const DEFAULT_DIAGNOSIS_VOTES = 5;

/** Three mutants, one of each kind where the code has them (decision 0022): three more pytest runs per passed node. */
export const DEFAULT_MUTANTS = 3;

/** Seed 004's max_review_attempts: reviews of one node's passing code; after the last rejection the next passing code stands. */
export const MAX_REVIEWS = 3;

/** Everything the TDD loop needs, handed in so that tests and edges can choose the parts. */
export interface TddSetup {
  provider: ModelProvider;
  keys: RequestKeys;
  files: PackageFiles;
  artifacts: ArtifactStore;
  python: string;
  maxIterations: number;
  /** Tests requests per round of tests: the first, and each rewrite a diagnosis asks for. */
  maxTestAttempts: number;
  /** How often a diagnosis may send a node back to new tests (decision 0020). */
  maxTestRewrites: number;
  /** How many times a failing gate is diagnosed; a majority of them decides (decision 0020). */
  diagnosisVotes: number;
  /** How many mutants of a passed node's code its tests are run against (decision 0022); 0 measures nothing. */
  mutants: number;
  /** Whether passing code is reviewed against its docstring before the node passes (decision 0027). */
  review: boolean;
  /** The most tokens one prompt may use, by estimate. */
  tokenBudget: number;
  /** What fix requests are told of the node's surroundings (decision 0028); absent: nothing. */
  localization?: FixLocalization;
  /** Whether fix requests offer the localization tools as model tool calls (decision 0030); the context is inlined either way. */
  fixTools: boolean;
  testFileOf(nodeId: string): string;
  /** The leaves a node depends on, for the imports its code needs. */
  dependenciesOf(node: RpgNode): RpgNode[];
  /** The names of a class's method nodes. */
  methodsOf(node: RpgNode): string[];
  /** The package's own top-level packages: imports of these are local (PEP 8's third group). */
  localPackages: string[];
  promptContext(node: RpgNode): NodePromptContext;
  jsonSchemaOf(schema: z.ZodType): Record<string, unknown>;
  runTests(testIds: readonly string[], signal: AbortSignal): Promise<PytestResult>;
  /** The tests run once for each source of `file` in one interpreter (a node's mutants, decision 0022); the file is not written. */
  runMutants(testIds: readonly string[], file: string, sources: readonly string[], signal: AbortSignal): Promise<PytestResult>;
  /** The node's tests run once more under coverage.py, counting `ranges` of `file` (decision 0023); absent where nothing measures it. */
  measureCoverage?: (
    testIds: readonly string[],
    file: string,
    ranges: readonly (readonly [number, number])[],
    signal: AbortSignal,
  ) => Promise<CoverageMeasure>;
  /** Why no node can have a coverage figure in this run (coverage.py missing), asked before a node's lines are found. */
  coverageMissing?: () => Promise<string | undefined>;
}

export interface TddSetupOptions {
  rpg: Rpg;
  plan: Plan;
  provider: ModelProvider;
  keys: RequestKeys;
  files: PackageFiles;
  artifacts: ArtifactStore;
  python: string;
  runTests: TddSetup["runTests"];
  runMutants: TddSetup["runMutants"];
  measureCoverage?: TddSetup["measureCoverage"];
  coverageMissing?: TddSetup["coverageMissing"];
  maxIterations?: number;
  maxTestAttempts?: number;
  diagnosisVotes?: number;
  mutants?: number;
  review?: boolean;
  tokenBudget?: number;
  localization?: FixLocalization;
  fixTools?: boolean;
  /** A revise run's reviewer notes, by node id. */
  notes?: ReadonlyMap<string, readonly ReviewerNote[]> | undefined;
}

export function createTddSetup(options: TddSetupOptions): TddSetup {
  const testFileOf = testFileLookup(options.rpg);
  const schemas = new Map<z.ZodType, Record<string, unknown>>();
  return {
    provider: options.provider,
    keys: options.keys,
    files: options.files,
    artifacts: options.artifacts,
    python: options.python,
    runTests: options.runTests,
    runMutants: options.runMutants,
    ...(options.measureCoverage ? { measureCoverage: options.measureCoverage } : {}),
    ...(options.coverageMissing ? { coverageMissing: options.coverageMissing } : {}),
    ...(options.localization ? { localization: options.localization } : {}),
    fixTools: options.fixTools ?? true,
    maxIterations: options.maxIterations ?? 8,
    maxTestAttempts: options.maxTestAttempts ?? 3,
    maxTestRewrites: 2,
    diagnosisVotes: options.diagnosisVotes ?? DEFAULT_DIAGNOSIS_VOTES,
    mutants: options.mutants ?? DEFAULT_MUTANTS,
    review: options.review ?? false,
    tokenBudget: options.tokenBudget ?? 24_000,
    testFileOf,
    dependenciesOf: (node) =>
      (options.plan.dependencies.get(node.id) ?? []).map((id) => options.plan.nodes.get(id)!).filter((n) => n.node_type === "leaf"),
    methodsOf: (node) => options.rpg.nodes.filter((n) => n.parent_id === node.id && symbolKindOf(n) === "method").map((n) => n.name),
    localPackages: localPackagesOf(options.rpg),
    promptContext: (node) => ({
      ...promptContext(node, options.plan, testFileOf, basesOf(options.rpg)),
      reviewerNotes: options.notes?.get(node.id),
    }),
    jsonSchemaOf: (schema) => {
      let json = schemas.get(schema);
      if (!json) schemas.set(schema, (json = strictJsonSchema(schema)));
      return json;
    },
  };
}

/** Top-level package names of the generated code (statkit for src/statkit/stats/core.py). */
export function localPackagesOf(rpg: Rpg): string[] {
  return [...new Set(rpg.nodes.map((n) => moduleOf(n.file_path).split(".")[0]!))].sort();
}

/** class id -> the names of the classes it inherits from (the RPG's inherits edges). */
function basesOf(rpg: Rpg): Map<string, string[]> {
  const names = new Map(rpg.nodes.map((n) => [n.id, n.name]));
  const bases = new Map<string, string[]>();
  for (const edge of rpg.edges ?? []) {
    if (edge.type !== "inherits" || !names.has(edge.target)) continue;
    bases.set(edge.source, [...(bases.get(edge.source) ?? []), names.get(edge.target)!]);
  }
  return bases;
}

/** The node and the interfaces of what it depends on: signatures and the first line of docstrings, never bodies. */
function promptContext(node: RpgNode, plan: Plan, testFileOf: (id: string) => string, bases: Map<string, string[]>): NodePromptContext {
  const dependencies = (plan.dependencies.get(node.id) ?? [])
    .map((id) => plan.nodes.get(id)!)
    .filter((dep) => dep.node_type === "leaf")
    .map((dep) => ({
      name: dep.name,
      module: moduleOf(dep.file_path),
      signature: signatureOf(dep),
      summary: dep.docstring.split("\n\n")[0]!.trim(),
    }));
  return {
    id: node.id,
    name: node.name,
    type: node.type,
    module: moduleOf(node.file_path),
    filePath: node.file_path,
    testFile: testFileOf(node.id),
    signature: signatureOf(node),
    docstring: node.docstring,
    examples: node.examples ?? [],
    requirements: node.requirements ?? [],
    dependencies,
    owner: ownerOf(node, plan),
    bases: bases.get(node.id),
  };
}

/** The class a method node belongs to. */
export function ownerOf(node: RpgNode, plan: Plan): { name: string; signature: string } | undefined {
  if (symbolKindOf(node) !== "method") return undefined;
  const owner = plan.nodes.get(node.parent_id!);
  return owner ? { name: owner.name, signature: signatureOf(owner) } : undefined;
}
