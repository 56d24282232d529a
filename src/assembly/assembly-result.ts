import type { ImportCycle } from "./imports.js";

/** What assembling the package did: the report and the terminal show it. */
export interface AssemblyResult {
  /** Placeholders used and files left alone, for the terminal and the report. */
  warnings: string[];
  written: string[];
  /** Modules that import each other at load time, which fails or misbehaves at import. */
  importCycles: ImportCycle[];
  /** The whole suite, run once more after assembly; undefined when no node passed. */
  suite: { exitCode: number; passed: number; failed: number; total: number } | undefined;
  /** pytest's JUnit report of that run: test_results.xml, a run artifact (its timings change on every run). */
  junitXml: string | undefined;
}
