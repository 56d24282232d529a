import { stripApiBlock } from "../assembly/init-files.js";
import { integrationTestFiles } from "../assembly/layout.js";
import { withoutSymbols } from "../assembly/module-subset.js";
import { withoutTestBlocks } from "../assembly/test-blocks.js";
import type { Plan } from "../plan/plan.js";
import { normalizePath } from "../rpg/paths.js";
import type { Rpg } from "../rpg/schema.js";
import type { PytestResult } from "../sandbox/pytest.js";
import type { PackageFiles } from "../workspace/package-files.js";
import { outlinePython } from "../workspace/python-outline.js";
import { assemblePackage, type AssemblyResult, type PackageView } from "./assemble.js";
import { checkpointText, type Checkpoint } from "./checkpoint.js";
import { CHECKPOINT_PATH, PYTEST_INI, REPORT_PATH } from "./output-paths.js";
import { pendingEntry } from "./state.js";

/**
 * A snapshot is the package as it stands once some subgraphs are done: exactly their
 * passed nodes' code and tests, assembled (API, pyproject, README), with the checkpoint
 * and report of that state. Every subgraph commit, and so every PR branch, is one: what a
 * person merges is a package whose records describe what it holds.
 */
export interface Snapshot {
  /** Each path rpg-forge decides in this snapshot: its content, or null where the file must not be. */
  files: Map<string, string | null>;
  checkpoint: Checkpoint;
  assembly: AssemblyResult;
}

export interface SnapshotInput {
  rpg: Rpg;
  plan: Plan;
  /** The run's checkpoint as it is now. */
  checkpoint: Checkpoint;
  /** The output: passed nodes' files as they were tested. */
  output: PackageView;
  /** The subgraphs done in this snapshot (a prefix of the merge order). */
  subgraphs: ReadonlySet<string>;
  python: string;
  model: string;
  testFileOf: (id: string) => string;
  /** Files the output held before the run: a snapshot without rpg-forge's version of one leaves it as it is (it may be a person's). */
  preexisting: ReadonlySet<string>;
  /** Runs the snapshot's suite where the snapshot's files are laid over a copy of the output. */
  runTests(files: ReadonlyMap<string, string | null>, targets: readonly string[]): Promise<PytestResult>;
  /** The report of a state, as committed (docs/generation_report.md). */
  renderReport(checkpoint: Checkpoint, assembly: AssemblyResult): string;
}

/**
 * The checkpoint as it reads when only `subgraphs` are done: their nodes as they are, every
 * other node as never tried. Its run id and time come from the nodes it holds, so the same
 * work gives the same file on every run.
 */
export function projectCheckpoint(checkpoint: Checkpoint, plan: Plan, subgraphs: ReadonlySet<string>): Checkpoint {
  const nodes: Checkpoint["nodes"] = {};
  let updated = checkpoint.created_at;
  let runId = checkpoint.run_id;
  let latestStart = "";
  for (const id of plan.order) {
    const node = plan.nodes.get(id)!;
    const entry = checkpoint.nodes[id];
    if (!entry || !subgraphs.has(node.subgraph_id)) {
      nodes[id] = pendingEntry(node, checkpoint.created_at);
      continue;
    }
    nodes[id] = structuredClone(entry);
    if (entry.timestamp > updated) updated = entry.timestamp;
    for (const attempt of entry.attempts) if (attempt.started_at > latestStart) [latestStart, runId] = [attempt.started_at, attempt.run_id];
  }
  const projected: Checkpoint = {
    version: 1,
    run_id: runId,
    rpg_sha256: checkpoint.rpg_sha256,
    created_at: checkpoint.created_at,
    updated_at: updated,
    nodes,
  };
  const integration = Object.entries(checkpoint.integration ?? {}).filter(([id]) => subgraphs.has(id));
  if (integration.length > 0) projected.integration = Object.fromEntries(integration.map(([id, record]) => [id, structuredClone(record)]));
  // The check read the code of every passed node: it describes a snapshot that holds all of them, and no other.
  const holdsAllCode = plan.order.every(
    (id) => checkpoint.nodes[id]?.status !== "passed" || subgraphs.has(plan.nodes.get(id)!.subgraph_id),
  );
  if (checkpoint.dependency_check && holdsAllCode) projected.dependency_check = structuredClone(checkpoint.dependency_check);
  return projected;
}

/** Makes the output hold a snapshot: what differs is written, what must not be there is removed. */
export async function writeSnapshot(output: PackageFiles, files: ReadonlyMap<string, string | null>): Promise<void> {
  for (const [rel, content] of files) {
    const current = await output.read(rel);
    if (content === null && current !== undefined) await output.remove(rel);
    else if (content !== null && content !== current) await output.write(rel, content);
  }
}

/** The package once `subgraphs` are done, from the output and the run's checkpoint. */
export async function buildSnapshot(input: SnapshotInput): Promise<Snapshot> {
  const { rpg, plan, output } = input;
  const checkpoint = projectCheckpoint(input.checkpoint, plan, input.subgraphs);
  const passedNow = (id: string): boolean => input.checkpoint.nodes[id]?.status === "passed";
  const kept = (id: string): boolean => checkpoint.nodes[id]?.status === "passed";
  const files = new Map<string, string | null>();
  const decide = (path: string, content: string | undefined): void => {
    if (content !== undefined) files.set(path, content);
    else if (!input.preexisting.has(path)) files.set(path, null);
  };

  // Each module and test file holds its kept nodes' code; the code of nodes done later is taken out.
  const byModule = new Map<string, { keep: string[]; drop: string[] }>();
  const byTestFile = new Map<string, { keep: string[]; drop: string[] }>();
  for (const node of rpg.nodes) {
    if (node.node_type !== "leaf") continue;
    const side = kept(node.id) ? "keep" : passedNow(node.id) ? "drop" : undefined;
    // A node's code is its symbol and its support code's names (a private helper, a table); registrations go with them.
    const owns = input.checkpoint.nodes[node.id]?.owns ?? [node.name];
    for (const [map, path, values] of [
      [byModule, normalizePath(node.file_path), owns],
      [byTestFile, input.testFileOf(node.id), [node.id]],
    ] as const) {
      const entry = map.get(path) ?? { keep: [], drop: [] };
      map.set(path, entry);
      if (side) entry[side].push(...values);
    }
  }
  // A file the output held before the run is read too when later nodes' code is in it: on a resume every file
  // rpg-forge wrote is one, and if nothing but that code is in it, it is not a person's and goes as well.
  const read = (path: string, keep: string[], drop: string[]): Promise<string | undefined> | undefined =>
    keep.length > 0 || (drop.length > 0 && input.preexisting.has(path)) ? output.read(path) : undefined;
  for (const [path, { keep, drop }] of byModule) {
    const source = await read(path, keep, drop);
    // An __init__.py that holds code gets its API block again from assembly, for this snapshot's API.
    const code = source === undefined ? undefined : path.endsWith("/__init__.py") ? stripApiBlock(source) : source;
    const rest = code === undefined ? undefined : await withoutSymbols(input.python, code, drop);
    if (keep.length > 0 || rest === undefined) decide(path, rest);
    // Only a docstring left: the file was rpg-forge's. Anything else is a person's, kept without the later code,
    // so that the suite runs against exactly what the commit holds.
    else files.set(path, (await onlyDocstring(input.python, rest)) ? null : rest);
  }
  for (const [path, { keep, drop }] of byTestFile) {
    const source = await read(path, keep, drop);
    const rest = source === undefined ? undefined : withoutTestBlocks(source, drop);
    if (keep.length > 0 || rest === undefined) decide(path, rest);
    else files.set(path, rest.trim() === "" ? null : rest);
  }

  // A done subgraph's integration tests as they passed (decision 0024); the others' are not there yet, even where the
  // output holds them from an earlier run (the run's checkpoint says rpg-forge shipped them, so they are not a person's).
  for (const [subgraphId, path] of integrationTestFiles(rpg)) {
    if (checkpoint.integration?.[subgraphId]?.file === path) decide(path, await output.read(path));
    else if (input.checkpoint.integration?.[subgraphId]?.file === path) files.set(path, null);
    else decide(path, undefined);
  }

  // The scaffold's pytest.ini (or the person's) is what makes the snapshot's tests import the package.
  const ini = await output.read(PYTEST_INI);
  if (ini !== undefined) files.set(PYTEST_INI, ini);

  const view: PackageView = {
    root: output.root,
    read: async (rel) => (files.has(rel) ? (files.get(rel) ?? undefined) : output.read(rel)),
    write: async (rel, content) => void files.set(rel, content),
  };
  const assembly = await assemblePackage({
    rpg,
    checkpoint,
    files: view,
    python: input.python,
    model: input.model,
    runTests: (targets) => input.runTests(files, targets),
  });
  files.set(CHECKPOINT_PATH, checkpointText(checkpoint));
  files.set(REPORT_PATH, input.renderReport(checkpoint, assembly));
  return { files, checkpoint, assembly };
}

/** A module that holds at most a docstring: what the loop starts a module with, so nothing in it is a person's. */
async function onlyDocstring(python: string, source: string): Promise<boolean> {
  if (/^\s*#/m.test(source)) return false;
  const outline = await outlinePython(python, source);
  return outline.ok && outline.statements.every((s) => s.kind === "docstring");
}
