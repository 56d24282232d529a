/**
 * Code intelligence on the generated repository of a 50-node RPG (issue 18): find_symbol with the language server
 * warm, against the PRD's target (< 200 ms) and our aim (a tenth of it); beside it, the server's start (once per run),
 * find_referencing_symbols, the parser that stands in for a failed server, and the dependency check, which must
 * confirm every planned dependency (the synthetic code has exactly the plan's). `npx tsx bench/symbols-bench.ts`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CodeIntelligence } from "../src/lsp/code-intelligence.js";
import { formatMs, now, renderTable, timeAsync, timingRow, type Row, type Samples } from "./measure.js";
import { syntheticRpg } from "./synthetic-rpg.js";
import { writeSyntheticRepository } from "./synthetic-repository.js";

/** The PRD's target for find_symbol, and ours: a tenth of it, with the server warm. */
export const SYMBOL_TARGETS = { prdMs: 200, aimMs: 20 } as const;

export interface SymbolsBenchOptions {
  nodes?: number;
  warmup?: number;
  runs?: number;
  /** Progress lines (stderr). */
  log?: (line: string) => void;
}

export interface BenchOutput {
  rows: Row[];
  notes: string[];
  fail: (message: string) => void;
}

export interface SymbolsBenchResult {
  start: number;
  findSymbol: Samples;
  references: Samples;
  parserFindSymbol: Samples;
  dependencyShare: number | null;
}

/** Times find_symbol and its neighbours on a synthetic RPG's repository; adds rows and notes to `out`. */
export async function benchSymbols(options: SymbolsBenchOptions, out: BenchOutput): Promise<SymbolsBenchResult> {
  const { nodes = 50, warmup = 10, runs = 60, log = (): void => undefined } = options;
  const { rpg } = syntheticRpg({ nodes, subgraphs: 3 });
  const root = await mkdtemp(join(tmpdir(), "rpg-forge-symbols-bench-"));
  try {
    const files = await writeSyntheticRepository(rpg, root);
    const names = rpg.nodes.map((n) => n.name).sort();
    let next = 0;
    // A different name each call, round the whole graph: no answer is served twice from a warm cache.
    const nextName = (): string => names[next++ % names.length]!;

    log(`pyright-langserver on ${files.length} files`);
    let started = now();
    const ci = await CodeIntelligence.start({ root, onWarning: (w) => out.fail(`symbols bench: ${w}`) });
    const start = now() - started;
    let findSymbol: Samples, references: Samples, dependencyShare: number | null;
    try {
      if (ci.backend !== "pyright") out.fail("symbols bench: pyright-langserver did not start");
      log("find_symbol");
      findSymbol = await timeAsync(
        async () => {
          const name = nextName();
          const found = await ci.findSymbol(name);
          if (found.value.length === 0 || found.via !== "pyright")
            out.fail(`symbols bench: find_symbol ${name} via ${found.via}, ${found.value.length} found`);
        },
        { warmup, runs },
      );
      log("find_referencing_symbols");
      references = await timeAsync(() => ci.findReferencingSymbols(nextName()), { warmup, runs: Math.min(runs, 30) });
      log("dependency check");
      started = now();
      const check = (await ci.checkDependencies(rpg)).value;
      dependencyShare = check.share;
      if (check.share !== 1 || check.unplanned.length > 0)
        out.fail(`symbols bench: the dependency check confirmed ${check.confirmed}/${check.planned}, ${check.unplanned.length} unplanned`);
      out.notes.push(
        `dependency check: ${check.confirmed}/${check.planned} planned dependencies confirmed in ${formatMs(now() - started)} (PRD target 80%)`,
      );
    } finally {
      await ci.close();
    }

    log("find_symbol, parser only");
    const parser = await CodeIntelligence.start({ root, server: false });
    const parserFindSymbol = await timeAsync(() => parser.findSymbol(nextName()), { warmup, runs });
    await parser.close();

    out.rows.push(
      {
        figure: `server start, ${nodes}-node repo (${files.length} files, once per run)`,
        value: { median: start, min: start, max: start, runs: 1 },
        target: "-",
        verdict: "",
      },
      timingRow(`find_symbol, ${nodes}-node repo, server warm (PRD)`, findSymbol, SYMBOL_TARGETS.prdMs),
      timingRow(`find_symbol, ${nodes}-node repo, server warm (our aim)`, findSymbol, SYMBOL_TARGETS.aimMs),
      timingRow(`find_referencing_symbols, ${nodes}-node repo, server warm`, references, SYMBOL_TARGETS.prdMs),
      timingRow(`find_symbol, ${nodes}-node repo, parser only (fallback)`, parserFindSymbol, SYMBOL_TARGETS.prdMs),
    );
    return { start, findSymbol, references, parserFindSymbol, dependencyShare };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const out: BenchOutput = { rows: [], notes: [], fail: (message) => failures.add(message) };
  const failures = new Set<string>();
  console.log(`rpg-forge symbols bench: node ${process.version}, ${availableParallelism()} cores\n`);
  await benchSymbols({ log: (line) => process.stderr.write(`  ${line}…\n`) }, out);
  console.log(renderTable(out.rows));
  if (out.notes.length > 0) console.log(`\n${out.notes.map((note) => `- ${note}`).join("\n")}`);
  if (failures.size > 0) {
    console.error(`\nFAILED (functional, not timing):\n${[...failures].map((f) => `  ${f}`).join("\n")}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
