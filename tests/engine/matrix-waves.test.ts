import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { matrixWaves, neededFor } from "../../src/engine/matrix.js";
import { buildPlan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import type { Rpg } from "../../src/rpg/schema.js";

function load(path: string): Rpg {
  const loaded = parseRpgText(readFileSync(new URL(path, import.meta.url), "utf8"), path);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.value;
}

describe("matrix mode's waves", () => {
  it("keep the plan's waves when no two subgraphs share a module", () => {
    const rpg = load("../../examples/statkit/rpg.json");
    expect(matrixWaves(buildPlan(rpg), rpg)).toEqual([["validation"], ["stats"], ["report"]]);
  });

  it("put a subgraph after an earlier one it shares a module with, so no two jobs write one file side by side", () => {
    const rpg = load("../fixtures/diamond/rpg.json");
    const plan = buildPlan(rpg);
    // left and right need only base, but both write src/dia/voice.py: right builds on left's copy.
    expect(plan.subgraphs.find((s) => s.id === "right")!.dependsOn).toEqual(["base"]);
    expect(neededFor(plan, rpg, "right")).toEqual(["base", "left"]);
    expect(neededFor(plan, rpg, "left")).toEqual(["base"]);
    expect(matrixWaves(plan, rpg)).toEqual([["base"], ["left"], ["right"], ["top"]]);
  });
});
