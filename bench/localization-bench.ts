/**
 * Issue 18's localization figures on a 50-node RPG and a repository written for it: RPG search, code view and
 * two-hop dependency traversal, each beside the PRD's target (search < 500 ms, view < 100 ms, traversal
 * < 200 ms) and our aim, a tenth of each, which is what the verdict column judges. Timings are never
 * asserted; a tool that gives a wrong answer is a failure.
 *
 * `npx tsx bench/localization-bench.ts`, or `benchLocalization(out)` from bench/run.ts.
 */
import { findPython } from "../src/sandbox/python.js";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { EmbeddingResult, TextEmbedder } from "../src/llm/embeddings.js";
import { CodeViewer } from "../src/localize/code-view.js";
import { DependencyExplorer, renderDependencyTree } from "../src/localize/dependencies.js";
import { renderCodeView, renderSearchResult } from "../src/localize/render.js";
import { RpgSearch } from "../src/localize/search.js";
import { splitWords } from "../src/localize/tokenize.js";
import { compareIds } from "../src/rpg/ids.js";
import type { Rpg, RpgNode } from "../src/rpg/schema.js";
import { formatMs, now, renderTable, timeAsync, timeSync, timingRow, type Row } from "./measure.js";
import { syntheticRpg } from "./synthetic-rpg.js";

/** The PRD's targets in ms (epic 4.3, functional tests); we aim for a tenth. */
const PRD = { search: 500, view: 100, traversal: 200 } as const;
const AIM = { search: PRD.search / 10, view: PRD.view / 10, traversal: PRD.traversal / 10 } as const;

export interface BenchOutput {
  rows: Row[];
  notes: string[];
  fail: (message: string) => void;
}

const RUNS = { warmup: 10, runs: 51 } as const;

/** Times search, view and traversal on a 50-node synthetic RPG and a repository written for it in a temp dir. */
export async function benchLocalization(out: BenchOutput, options: { python?: string; nodes?: number } = {}): Promise<void> {
  const python = options.python ?? (await findPython());
  const nodes = options.nodes ?? 50;
  const { rpg } = syntheticRpg({ nodes, subgraphs: 3 });
  const leaves = rpg.nodes.filter((n) => n.node_type === "leaf").sort((a, b) => compareIds(a.id, b.id));
  const dir = await mkdtemp(join(tmpdir(), "rpg-forge-localize-bench-"));
  const label = (what: string, prd: number): string => `localize ${nodes} nodes: ${what} (PRD < ${prd} ms)`;
  try {
    await writeRepository(dir, rpg);
    const queries = leaves.map((n) => splitWords(n.name).join(" "));
    let q = 0;
    const nextQuery = (): string => queries[q++ % queries.length]!;
    let at = 0;
    const nextNode = (): RpgNode => leaves[at++ % leaves.length]!;

    // Search: BM25 over a built index (how the engine holds it), cold (index and query), and by embeddings with
    // the RPG's vectors cached and an in-process embedder: the ranking's own cost, without a network round trip.
    const search = new RpgSearch(rpg);
    out.rows.push(
      timingRow(
        label("search, BM25", PRD.search),
        timeSync(() => renderSearchResult(search.searchOffline(nextQuery(), { scope: "all" })), RUNS),
        AIM.search,
      ),
    );
    out.rows.push(
      timingRow(
        label("search, BM25, index built per query", PRD.search),
        timeSync(() => new RpgSearch(rpg).searchOffline(nextQuery(), { scope: "all" }), RUNS),
        AIM.search,
      ),
    );
    const semantic = new RpgSearch(rpg, { embedder: hashingEmbedder() });
    out.rows.push(
      timingRow(
        label("search, embeddings (vectors cached, no network)", PRD.search),
        await timeAsync(() => semantic.search(nextQuery(), { scope: "all" }), RUNS),
        AIM.search,
      ),
    );
    for (const node of leaves) {
      const hits = search.searchOffline(splitWords(node.name).join(" "), { scope: { subgraph: node.subgraph_id } }).hits;
      if (!hits.some((h) => h.id === node.id)) out.fail(`searching "${node.name}" in its subgraph did not find ${node.id}`);
    }

    // View: a node's source with its file cached, and cold (read and parsed by the warm python worker), and an outline.
    const viewer = new CodeViewer(dir, { python, rpg });
    out.rows.push(
      timingRow(
        label("view a node's source, file cached", PRD.view),
        await timeAsync(async () => renderCodeView(await viewer.view({ nodeId: nextNode().id })), RUNS),
        AIM.view,
      ),
    );
    out.rows.push(
      timingRow(
        label("view a node's source, cold (read + parse)", PRD.view),
        await timeAsync(async () => renderCodeView(await new CodeViewer(dir, { python, rpg }).view({ nodeId: nextNode().id })), RUNS),
        AIM.view,
      ),
    );
    out.rows.push(
      timingRow(
        label("view a file's outline, cold", PRD.view),
        await timeAsync(
          async () => renderCodeView(await new CodeViewer(dir, { python, rpg }).view({ file: nextNode().file_path }, { outline: true })),
          RUNS,
        ),
        AIM.view,
      ),
    );
    for (const node of leaves) {
      const view = await viewer.view({ nodeId: node.id });
      if (view.kind !== "source") out.fail(`view of ${node.id} is ${view.kind}, not its source`);
    }

    // Traversal: two hops each way, rendered as the ASCII tree, over a built graph and with the graph built per call.
    const explorer = new DependencyExplorer(rpg);
    out.rows.push(
      timingRow(
        label("two-hop traversal + tree", PRD.traversal),
        timeSync(() => renderDependencyTree(explorer.explore(nextNode().id)), RUNS),
        AIM.traversal,
      ),
    );
    out.rows.push(
      timingRow(
        label("two-hop traversal, graph built per call", PRD.traversal),
        timeSync(() => new DependencyExplorer(rpg).explore(nextNode().id), RUNS),
        AIM.traversal,
      ),
    );
    const withDeps = leaves.find((n) => n.dependencies.length > 0);
    if (withDeps && explorer.explore(withDeps.id).dependsOn.length === 0)
      out.fail(`traversal of ${withDeps.id} found none of its dependencies`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A Python module per file of the RPG: each leaf a function or class with its signature, docstring and a small body. */
async function writeRepository(dir: string, rpg: Rpg): Promise<void> {
  const files = new Map<string, RpgNode[]>();
  for (const node of rpg.nodes.filter((n) => n.node_type === "leaf").sort((a, b) => compareIds(a.id, b.id))) {
    files.set(node.file_path, [...(files.get(node.file_path) ?? []), node]);
  }
  for (const [path, nodes] of files) {
    const parts = ['"""Synthetic module for the localization bench."""', "from typing import Iterable, Mapping", ""];
    for (const node of nodes) parts.push("", pythonOf(node));
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), `${parts.join("\n")}\n`);
  }
}

function pythonOf(node: RpgNode): string {
  const doc = `    """${node.docstring.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"').split("\n").join("\n    ")}\n    """`;
  if (node.type === "class")
    return [
      `class ${node.name}:`,
      doc,
      "",
      "    def __init__(self, strict: bool = False) -> None:",
      "        self.size = 0",
      "        self.strict = strict",
      "",
    ].join("\n");
  return [
    `${node.signature}:`,
    doc,
    "    result = []",
    "    for index, item in enumerate(locals().values()):",
    "        if item is None:",
    '            raise ValueError(f"item {index + 1} is empty")',
    "        result.append(item)",
    "    return result  # type: ignore[return-value]",
    "",
  ].join("\n");
}

/** Deterministic 1,536-dimension vectors (word hashes), like text-embedding-3-small's size; computed in-process. */
function hashingEmbedder(): TextEmbedder {
  const DIMENSIONS = 1536;
  const vectorOf = (text: string): number[] => {
    const v = new Array<number>(DIMENSIONS).fill(0);
    for (const word of splitWords(text)) {
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
      v[(h >>> 0) % DIMENSIONS]! += 1;
    }
    return v;
  };
  return {
    model: "bench-hash",
    description: "in-process word hashes",
    embed: (texts): Promise<EmbeddingResult> =>
      Promise.resolve({ ok: true, vectors: texts.map(vectorOf), usage: { promptTokens: 0, totalTokens: 0 } }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out: BenchOutput = { rows: [], notes: [], fail: (message) => out.notes.push(`FAILED: ${message}`) };
  const start = now();
  await benchLocalization(out);
  console.log(renderTable(out.rows));
  if (out.notes.length > 0) console.log(`\n${out.notes.map((note) => `- ${note}`).join("\n")}`);
  console.log(`\nfinished in ${formatMs(now() - start)}`);
  if (out.notes.some((note) => note.startsWith("FAILED"))) process.exitCode = 1;
}
