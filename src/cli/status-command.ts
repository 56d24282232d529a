import type { Command } from "commander";
import { CheckpointStore } from "../engine/checkpoint-journal.js";
import { summarize, type RunSummary } from "../record/summary.js";
import { RpgForgeError } from "../errors.js";
import { terminalLine } from "../report/terminal.js";
import { printRunError, type CliIo } from "./output.js";

export function addStatusCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("status")
    .description("show the counts per status and subgraph, and the failed nodes, of a checkpoint")
    .argument("<checkpoint>", "path to a generation checkpoint (docs/generation_checkpoint.json in the output)")
    .option("--json", "print the summary as JSON")
    .action(async (file: string, options: { json?: boolean }) => {
      try {
        // With its journal: the status of a run going on, or one that was stopped, is up to its last node.
        const checkpoint = await new CheckpointStore(file).read();
        if (!checkpoint)
          throw new RpgForgeError(
            "INPUT_NOT_FOUND",
            "no checkpoint at this path",
            { file },
            "generate writes it to docs/generation_checkpoint.json in the output directory",
          );
        const summary = summarize(checkpoint);
        io.out(options.json ? `${JSON.stringify(summary, null, 2)}\n` : statusText(summary, file));
      } catch (error) {
        setExit(printRunError(io, error));
      }
    });
}

function statusText(summary: RunSummary, file: string): string {
  const { counts } = summary;
  const pct = (n: number): string => (counts.total === 0 ? "0%" : `${Math.round((n / counts.total) * 100)}%`);
  const lines = [
    `${file}: ${counts.total} nodes: ${counts.passed} passed (${pct(counts.passed)}), ${counts.failed} failed, ${counts.skipped} skipped, ${counts.pending + counts.in_progress} not yet generated`,
    "",
    table(
      ["subgraph", "nodes", "passed", "failed", "skipped", "pending"],
      summary.subgraphs.map((s) => [terminalLine(s.id), s.total, s.passed, s.failed, s.skipped, s.pending + s.in_progress].map(String)),
    ),
  ];
  if (summary.failed.length > 0) {
    lines.push("", "Failed nodes:");
    // Failure reasons are the model's and pytest's words: each stays one inert line.
    for (const f of summary.failed)
      lines.push(terminalLine(`  ${f.id} [${f.subgraphId ?? "-"}] after ${f.iterations} debug iterations: ${f.reason}`));
  }
  if (summary.skipped.length > 0) {
    lines.push("", "Skipped nodes (blocked by a failed dependency):");
    for (const s of summary.skipped) lines.push(terminalLine(`  ${s.id} ← ${s.blockedBy.join(", ") || "?"}`));
  }
  return `${lines.join("\n")}\n`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`;
  return [line(header), ...rows.map(line)].join("\n");
}
