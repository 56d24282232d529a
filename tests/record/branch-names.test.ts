import { describe, expect, it } from "vitest";
import {
  isOwnBranch,
  issueBranch,
  rpgNameOf,
  runBranch,
  subgraphBranch,
  subgraphOfPrBranch,
  subgraphTag,
  workBranch,
} from "../../src/record/branch-names.js";

/** rpg-forge's branch and tag names, built and recognized by one module. */
describe("branch names", () => {
  it("builds each kind of name, ref-safe", () => {
    expect(subgraphBranch("statkit", "core")).toBe("rpg/statkit/core");
    expect(workBranch("statkit", "core")).toBe("rpg-work/statkit/core");
    expect(runBranch("statkit")).toBe("rpg-forge/statkit");
    expect(issueBranch(12)).toBe("rpg-forge/issue-12");
    expect(subgraphTag("20261123T1-abc", "core")).toBe("rpg/20261123T1-abc/core");
    expect(subgraphBranch("stat kit", "a..b")).not.toMatch(/ |\.\./);
  });

  it("recognizes its own branches, as names or refs, and no one else's", () => {
    for (const own of ["rpg/statkit/core", "refs/heads/rpg-work/statkit/core", "rpg-forge/issue-3", "refs/heads/rpg-forge/statkit"])
      expect(isOwnBranch(own), own).toBe(true);
    for (const theirs of ["main", "refs/heads/feature/rpg/x", "rpgs/x", "refs/heads/rpg", "rpg-forged/x"])
      expect(isOwnBranch(theirs), theirs).toBe(false);
  });

  it("finds the subgraph a pull request branch is for, parsing what subgraphBranch built", () => {
    const ids = ["core", "io helpers", "ui"];
    for (const id of ids) expect(subgraphOfPrBranch(subgraphBranch("statkit", id), ids)).toBe(id);
    expect(subgraphOfPrBranch("rpg-work/statkit/core", ids)).toBeUndefined();
    expect(subgraphOfPrBranch("rpg/statkit/other", ids)).toBeUndefined();
  });

  it("names a graph by its metadata.name, else its folder, else the root it is relative to", () => {
    const named = { metadata: { name: "statkit" } };
    const unnamed = { metadata: {} };
    expect(rpgNameOf(named, "graphs/a.json", "repo")).toBe("statkit");
    expect(rpgNameOf(unnamed, "graphs/a.json", "repo")).toBe("graphs");
    expect(rpgNameOf(unnamed, "rpg.json", "statkit-repo")).toBe("statkit-repo");
    expect(rpgNameOf(unnamed, "/home/ada/work/lexkit/rpg.json")).toBe("lexkit");
    expect(rpgNameOf({ metadata: { name: "" } }, "C:\\work\\lexkit\\rpg.json")).toBe("lexkit");
  });
});
