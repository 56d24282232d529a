import { describe, expect, it } from "vitest";
import type { RecordedDependencyCheck } from "../../src/record/dependency-check.js";
import { renderDependencyCheck } from "../../src/report/dependency-check.js";
import { dependencyCheckOf } from "../helpers/checkpoint.js";

const check = (over: Partial<RecordedDependencyCheck>): RecordedDependencyCheck =>
  dependencyCheckOf({ planned: 17, confirmed: 15, share: 15 / 17, ...over });

describe("the report's dependency check (decision 0028)", () => {
  it("gives the share of planned edges the code confirms against the target, then what is missing and what is unplanned", () => {
    const lines = renderDependencyCheck(
      check({
        missing: [
          { dependent: "stats.mean", dependency: "validation.ensure_numbers", plannedAs: ["dependencies", "function_call"] },
          { dependent: "stats.mode", dependency: "validation.ensure_numbers", plannedAs: ["function_call"] },
        ],
        unplanned: [
          { dependent: "report.summarize", dependency: "stats.variance", at: [{ file: "src/statkit/report/summary.py", line: 12 }] },
        ],
        unchecked: 1,
      }),
    ).join("\n");
    expect(lines).toContain("✅ Dependency check: 88% of planned edges confirmed (target 80%): 15 of 17.");
    expect(lines).toContain(
      "**Planned, not in the code** (2):\n\n- `stats.mean` → `validation.ensure_numbers` (dependencies, function_call)",
    );
    expect(lines).toContain(
      "**In the code, not planned** (1):\n\n- `report.summarize` → `stats.variance` at `src/statkit/report/summary.py:12`",
    );
    expect(lines).toContain("1 planned dependency not checked: one end has no code (failed or skipped).");
  });

  it("warns below the target, and renders nothing without a check", () => {
    expect(renderDependencyCheck(check({ confirmed: 5, share: 5 / 17, meetsTarget: false })).join("\n")).toContain(
      "⚠️ Dependency check: 29% of planned edges confirmed (target 80%): 5 of 17.",
    );
    expect(renderDependencyCheck(undefined)).toEqual([]);
  });
});
