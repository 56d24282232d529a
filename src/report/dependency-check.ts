import type { RecordedDependencyCheck } from "../record/dependency-check.js";
import { code } from "./markdown.js";

/** Edges listed per kind; the checkpoint has them all. */
const LISTED = 20;

/**
 * The dependency check (decisions 0026, 0028) as a report section: the share of planned dependencies the code
 * confirms against the PRD's target, then the planned ones it lacks and the references the plan lacks. Which
 * implementation answered is left out: the same code gives the same section, with or without the language server.
 */
export function renderDependencyCheck(check: RecordedDependencyCheck | undefined): string[] {
  if (!check) return [];
  const pct = (share: number): string => `${Math.round(share * 100)}%`;
  const figure =
    check.share === null
      ? "no planned dependency between two generated leaves to check"
      : `${pct(check.share)} of planned edges confirmed (target ${pct(check.target)}): ${check.confirmed} of ${check.planned}`;
  const lines = [
    "## Dependency Check",
    "",
    `${check.meetsTarget ? "✅" : "⚠️"} Dependency check: ${figure}. The RPG's dependencies between leaves against the references in the generated code.`,
    "",
  ];
  const list = <T>(title: string, items: readonly T[], line: (item: T) => string): void => {
    if (items.length === 0) return;
    lines.push(`**${title}** (${items.length}):`, "");
    for (const item of items.slice(0, LISTED)) lines.push(`- ${line(item)}`);
    if (items.length > LISTED) lines.push(`- … and ${items.length - LISTED} more (docs/generation_checkpoint.json has them all)`);
    lines.push("");
  };
  list("Planned, not in the code", check.missing, (e) => `${code(e.dependent)} → ${code(e.dependency)} (${e.plannedAs.join(", ")})`);
  list("In the code, not planned", check.unplanned, (e) => {
    const at = e.at.slice(0, 3).map((p) => code(`${p.file}:${p.line}`));
    return `${code(e.dependent)} → ${code(e.dependency)} at ${at.join(", ")}${e.at.length > 3 ? ", …" : ""}`;
  });
  if (check.unchecked > 0)
    lines.push(
      `${check.unchecked} planned dependenc${check.unchecked === 1 ? "y" : "ies"} not checked: one end has no code (failed or skipped).`,
      "",
    );
  return lines;
}
