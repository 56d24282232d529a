import type { CheckpointEntry } from "../record/checkpoint.js";
import type { CoverageCount } from "../record/coverage.js";
import { code, prose } from "./markdown.js";
import { partOf } from "./share.js";

/** "12 of 14 (86%)", or "–" when there is nothing to cover. */
const share = (count: CoverageCount): string => partOf(count.covered, count.total);

/**
 * A table of the coverage of each node's code by its own tests (decision 0023), for the nodes among
 * `ids` that have a figure, and one line for those that have a note instead. Empty when none has either.
 */
export function renderCoverage(ids: readonly string[], nodes: Readonly<Record<string, CheckpointEntry>>): string[] {
  const measured = ids.filter((id) => nodes[id]?.coverage !== undefined);
  const notes = ids.filter((id) => nodes[id]?.coverage === undefined && nodes[id]?.coverage_note !== undefined);
  if (measured.length === 0 && notes.length === 0) return [];
  const lines: string[] = [];
  if (measured.length > 0) {
    lines.push("| Node | Lines | Branches |", "|------|-------|----------|");
    for (const id of measured) {
      const { lines: covered, branches } = nodes[id]!.coverage!;
      lines.push(`| ${code(id)} | ${share(covered)} | ${share(branches)} |`);
    }
  }
  // The same note for many nodes (coverage.py not installed) is said once.
  const byNote = new Map<string, string[]>();
  for (const id of notes) byNote.set(nodes[id]!.coverage_note!, [...(byNote.get(nodes[id]!.coverage_note!) ?? []), id]);
  for (const [note, which] of byNote) {
    const list = which.length > 3 ? `${which.length} nodes` : which.map(code).join(", ");
    lines.push(...(lines.length > 0 ? [""] : []), `_No coverage figure for ${list}: ${prose(note, 300)}_`);
  }
  return lines;
}
