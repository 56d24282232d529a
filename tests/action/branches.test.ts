import { describe, expect, it } from "vitest";
import { branchesWithAPassedNode } from "../../src/action/generate-mode.js";
import { buildPlan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { checkpointEntry, checkpointOf } from "../helpers/checkpoint.js";

describe("which subgraphs keep a branch", () => {
  it("only those with a passed node and a branch, however an earlier run left them", () => {
    const loaded = parseRpgText(
      text(
        rpgDoc([
          leaf({ id: "a1", subgraph: "a", file: "src/pkg/a.py" }),
          leaf({ id: "b1", subgraph: "b", file: "src/pkg/b.py" }),
          leaf({ id: "c1", subgraph: "c", file: "src/pkg/c.py" }),
        ]),
      ),
      "rpg.json",
    );
    if (!loaded.ok) throw new Error("invalid");
    const checkpoint = checkpointOf({ a1: checkpointEntry("passed"), b1: checkpointEntry("failed"), c1: checkpointEntry("passed") });
    // b's branch is from an earlier run in which b1 passed; c has no branch yet.
    const branches = branchesWithAPassedNode(
      buildPlan(loaded.value),
      checkpoint,
      new Set(["rpg/pkg/a", "rpg/pkg/b"]),
      (id) => `rpg/pkg/${id}`,
    );
    expect([...branches]).toEqual([["a", "rpg/pkg/a"]]);
  });
});
