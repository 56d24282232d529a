import { describe, expect, it } from "vitest";
import { planSummary, pullRequestTable } from "../../src/action/summaries.js";
import { buildPlan } from "../../src/plan/plan.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { HOSTILE, HOSTILE_TEXT, livePayloads } from "../helpers/live-markdown.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { expectBalanced } from "../report/markdown-structure.js";

const core = `core ${HOSTILE.mention} ${HOSTILE.link}`;
const io = `io ${HOSTILE.image} ${HOSTILE.comment} ${HOSTILE.tag}`;
const loaded = parseRpgText(
  text(
    rpgDoc([leaf({ id: "a", subgraph: io }), leaf({ id: "b", subgraph: core, deps: ["a"] })], [], {
      subgraphs: [
        { id: io, name: `IO ${HOSTILE_TEXT}` },
        { id: core, name: `Core | ${HOSTILE_TEXT}` },
      ],
    }),
  ),
  "rpg.json",
);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
const plan = buildPlan(loaded.value);

describe("the Action's job summaries", () => {
  it("quote subgraph ids in the plan summary inert", () => {
    const markdown = planSummary(plan, `rpg ${HOSTILE.mention}.json`);
    expect(livePayloads(markdown)).toEqual([]);
    expectBalanced(markdown);
    expect(markdown).toContain(
      "| 2 | `core @octocat [x](https://evil)` | 1 | `io ![i](https://evil/p.png) <!-- rpg-forge:marker --> <img src=x>` |",
    );
  });

  it("quote subgraph names and branches in the pull request table inert, keeping our own links", () => {
    const prs = [
      { subgraphId: io, number: 4, url: "https://github.com/o/r/pull/4", created: true, closed: false, base: `rpg/x/${HOSTILE.mention}` },
      { subgraphId: core, number: 5, url: "https://github.com/o/r/pull/5", created: false, closed: false, base: "main" },
    ];
    const markdown = pullRequestTable(prs, plan);
    expect(livePayloads(markdown)).toEqual([]);
    expect(markdown).toContain("[#4](https://github.com/o/r/pull/4) (new)");
    // A pipe in a name stays inside its cell.
    expect(
      markdown
        .split("\n")
        .filter((l) => l.startsWith("| Core"))
        .map((l) => l.split(/(?<!\\)\|/).length),
    ).toEqual([5]);
  });
});
