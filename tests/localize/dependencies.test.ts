import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DependencyExplorer, renderDependencyTree, statusesOf } from "../../src/localize/dependencies.js";
import type { NodeStatus, Rpg } from "../../src/rpg/schema.js";

const FIXTURE = new URL("../fixtures/localize/stats-rpg.json", import.meta.url);
const loadFixture = (): Rpg => JSON.parse(readFileSync(FIXTURE, "utf8")) as Rpg;
const ids = (list: { id: string }[]): string[] => list.map((n) => n.id);

describe("DependencyExplorer", () => {
  // format_report -> standard_deviation -> calculate_mean -> validate_input: format_report needs the deviation,
  // which calls the mean (a function_call edge), which needs validated input.
  it("test_dependency_traversal: A→B→C, querying B shows A and C", () => {
    const view = new DependencyExplorer(loadFixture()).explore("stats.standard_deviation");
    expect(ids(view.dependents)).toEqual(["report.format_report"]);
    expect(ids(view.dependsOn)).toEqual(["stats.calculate_mean"]);
  });

  it("goes two hops each way: what my dependencies depend on, and who depends on my dependents", () => {
    const explorer = new DependencyExplorer(loadFixture());
    const down = explorer.explore("report.format_report");
    const deviation = down.dependsOn.find((n) => n.id === "stats.standard_deviation")!;
    expect(ids(deviation.next)).toEqual(["stats.calculate_mean"]);
    const up = explorer.explore("stats.calculate_mean");
    expect(ids(up.dependents)).toEqual(["stats.standard_deviation"]);
    expect(ids(up.dependents[0]!.next)).toEqual(["report.format_report"]);
    // No third hop: validate_input's own dependents' dependents are not listed from format_report.
    expect(JSON.stringify(down)).not.toContain("validation.validate_input");
  });

  it("lists what else depends on each dependency", () => {
    const view = new DependencyExplorer(loadFixture()).explore("stats.calculate_mean");
    expect(view.dependsOn).toEqual([
      expect.objectContaining({ id: "validation.validate_input", alsoNeededBy: ["stats.calculate_median"] }),
    ]);
  });

  it("follows data_flow from producer to consumer (decision 0001), and leaves out the module a node sits in", () => {
    const explorer = new DependencyExplorer(loadFixture());
    expect(ids(explorer.explore("report.format_report").dependsOn)).toEqual(["stats.standard_deviation", "validation.parse_numbers"]);
    expect(ids(explorer.explore("validation.parse_numbers").dependents)).toEqual(["report.format_report"]);
    expect(ids(explorer.explore("validation.parse_numbers").dependsOn)).toEqual([]); // not validation.module
  });

  it("shows a node without dependencies as an empty list, not an error", () => {
    const view = new DependencyExplorer(loadFixture()).explore("stats.count_values");
    expect(view.dependsOn).toEqual([]);
    expect(view.dependents).toEqual([]);
    expect(renderDependencyTree(view)).toBe(
      [
        "stats.count_values (count_values)  [stats, src/stats_kit/descriptive.py]",
        "|-- depends on: (none)",
        "`-- needed by: (none)",
        "",
      ].join("\n"),
    );
  });

  it("marks failed nodes within two hops, from the statuses given", () => {
    const statuses = new Map<string, NodeStatus>([
      ["stats.calculate_mean", "failed"],
      ["stats.standard_deviation", "passed"],
      ["report.format_report", "skipped"],
    ]);
    const view = new DependencyExplorer(loadFixture()).explore("report.format_report", statuses);
    expect(view.failedNearby).toEqual(["stats.calculate_mean"]);
    expect(view.dependsOn[0]!.next[0]).toMatchObject({ id: "stats.calculate_mean", status: "failed", failed: true });
    expect(view.node).toMatchObject({ status: "skipped", failed: false });
    const tree = renderDependencyTree(view);
    expect(tree).toContain("stats.calculate_mean (calculate_mean) [FAILED]");
    expect(tree).toContain("FAILED within two hops (may be the root cause): stats.calculate_mean");
  });

  it("takes the statuses from the RPG itself by default (docs/rpg.json carries them)", () => {
    const rpg = loadFixture();
    rpg.nodes.find((n) => n.id === "validation.validate_input")!.status = "failed";
    expect(statusesOf(rpg).get("validation.validate_input")).toBe("failed");
    expect(new DependencyExplorer(rpg).explore("stats.calculate_median").failedNearby).toEqual(["validation.validate_input"]);
  });

  it("draws an ASCII tree", () => {
    const tree = renderDependencyTree(new DependencyExplorer(loadFixture()).explore("stats.standard_deviation"));
    expect(tree).toBe(
      [
        "stats.standard_deviation (standard_deviation)  [stats, src/stats_kit/descriptive.py]",
        "|-- depends on (1)",
        "|   `-- stats.calculate_mean (calculate_mean)",
        "|       `-- depends on validation.validate_input (validate_input)",
        "`-- needed by (1)",
        "    `-- report.format_report (format_report)",
        "",
      ].join("\n"),
    );
    expect(/^[\x20-\x7e\n]*$/.test(tree)).toBe(true);
  });

  it("refuses an unknown node id with LOCALIZE_UNKNOWN_NODE", () => {
    expect(() => new DependencyExplorer(loadFixture()).explore("stats.nope")).toThrow(
      expect.objectContaining({ code: "LOCALIZE_UNKNOWN_NODE", at: { nodeId: "stats.nope" } }),
    );
  });
});
