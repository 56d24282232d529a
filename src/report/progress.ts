import type { RunEvent } from "../record/events.js";
import { duration } from "./generation-report.js";
import { count } from "./markdown.js";
import { percentOf } from "./share.js";
import { terminalLine } from "./terminal.js";

const RESET_REASONS = {
  "spec-changed": "Regenerating nodes whose specification changed",
  "not-in-rpg": "Dropped from the checkpoint (no longer in the RPG)",
  "not-written": "Regenerating nodes whose files were not written before the last run stopped",
} as const;

/**
 * Renders run events for a terminal: a line per node as it finishes and, every ten
 * nodes, how far the run is with an ETA. Written to stderr so that stdout stays for
 * results. Each event is one line, whatever control characters the text in it holds.
 */
export function progressPrinter(output: (text: string) => void): (event: RunEvent) => void {
  // Ids, reasons and paths come from the RPG, the model and generated code: one inert line each.
  const write = (text: string): void => output(`${terminalLine(text.replace(/\n$/, ""))}\n`);
  let total = 0;
  let done = 0;
  return (event) => {
    switch (event.type) {
      case "run-started":
        total = event.toRun;
        write(`${event.resumed ? "Resuming" : "Starting"} run ${event.runId}: ${event.toRun} of ${event.total} nodes to generate\n`);
        break;
      case "checkpoint-set-aside":
        write(`The previous checkpoint was kept as ${event.path}\n`);
        break;
      case "nodes-reset":
        write(`${RESET_REASONS[event.reason]}: ${event.nodeIds.join(", ")}\n`);
        break;
      case "batch-written":
        if (event.files.length > 0)
          write(`Wrote ${plural(event.files.length, "file", "files")} to the output (${event.nodeIds.join(", ")})\n`);
        for (const { nodeId, reason } of event.failed) write(`✗ ${nodeId} failed: ${reason}\n`);
        if (event.blocked.length > 0) write(`- not written, they import a node that could not be: ${event.blocked.join(", ")}\n`);
        break;
      case "node-finished": {
        done++;
        const counter = `[${String(done).padStart(String(total).length)}/${total}]`;
        if (event.status === "passed") {
          const detail =
            event.iterations === undefined
              ? "scaffold"
              : `${plural(event.iterations, "fix", "fixes")}, ${duration(event.durationMs)}, ${count(event.tokens ?? 0)} tokens`;
          write(`${counter} ✓ ${event.nodeId} passed (${detail})\n`);
        } else if (event.status === "failed") {
          write(
            `${counter} ✗ ${event.nodeId} failed after ${plural(event.iterations ?? 0, "debug iteration", "debug iterations")}: ${event.reason ?? ""}\n`,
          );
        } else {
          write(`${counter} - ${event.nodeId} skipped: blocked by ${event.blockedBy?.join(", ") ?? "?"}\n`);
        }
        break;
      }
      case "progress":
        if (event.done < event.total) {
          write(
            `Completed ${event.done}/${event.total} nodes (${Math.round((event.done / event.total) * 100)}%), ETA ${duration(event.etaMs)}\n`,
          );
        }
        break;
      case "subgraph-committed": {
        const parts = [
          ...(event.sha ? [`as ${event.sha.slice(0, 7)} (tag ${event.tag})`] : []),
          ...(event.branch ? [`on branch ${event.branch}`] : []),
        ];
        write(`Committed subgraph ${event.subgraphId} ${parts.join(", ")}\n`);
        break;
      }
      case "integration-tested": {
        const mark = event.status === "validated" ? "✓" : "✗";
        const figure =
          event.total > 0
            ? `${event.passed} of ${event.total} passed (${percentOf(event.passed, event.total)}), ${event.status === "validated" ? "validated" : "not validated"}, ${event.shipped} shipped`
            : `not validated: ${event.note ?? "no test ran"}`;
        write(`${mark} Integration tests of subgraph ${event.subgraphId}: ${figure}\n`);
        break;
      }
      case "dependency-checked": {
        const by = event.via === "pyright" ? "pyright-langserver" : "Python's parser";
        const figure =
          event.planned > 0
            ? `${event.confirmed} of ${event.planned} planned dependencies found in the code (${percentOf(event.confirmed, event.planned)}; target ${Math.round(event.target * 100)}%)`
            : "no planned dependency between two generated nodes to look for";
        write(`${event.meetsTarget ? "✓" : "✗"} Dependency check by ${by}: ${figure}\n`);
        break;
      }
      case "run-finished":
        if (event.interrupted) write("Interrupted: the checkpoint is saved; run again with --resume to continue.\n");
        break;
      case "node-started":
        break;
    }
  };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
