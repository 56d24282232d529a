import { describe, expect, it } from "vitest";

import { fencedBlocks, issuePathProblem, issueRpg } from "../../src/app/issue-rpg.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";

const graph = text(rpgDoc([leaf({ id: "a" }), leaf({ id: "b", deps: ["a"] })]));
const fence = (info: string, content: string, ticks = "```") => `${ticks}${info}\n${content.replace(/\n$/, "")}\n${ticks}`;

describe("the graph an issue asks for", () => {
  it("is the first block fenced as json, and names the line of the body where it starts", () => {
    const body = ["Please generate this:", "", fence("json", graph), "", "and not this:", "", fence("json", '{"nodes": []}')].join("\n");
    const asked = issueRpg(body);
    expect(asked).toEqual({ kind: "text", text: graph.trimEnd(), line: 4, path: undefined });
    expect(parseRpgText((asked as { text: string }).text, "issue").ok).toBe(true);
  });

  it("is found by its info string's first word in any case, after other blocks", () => {
    const body = [fence("python", "print('{')"), fence("yaml", "rpg: [a.json]"), fence("JSON  title=rpg", graph)].join("\n\n");
    expect(issueRpg(body)).toMatchObject({ kind: "text", text: graph.trimEnd() });
  });

  it("without a json block, is the first unlabelled block that starts with {, and never a block of another language", () => {
    expect(issueRpg(`${fence("", "$ npm test")}\n${fence("", graph)}`)).toMatchObject({ kind: "text", text: graph.trimEnd() });
    expect(issueRpg(fence("js", graph))).toEqual({ kind: "path", path: undefined });
  });

  it("is a json block even when the block is invalid, so that its problems are reported instead of another graph run", () => {
    expect(issueRpg(`${fence("json", "{ not json")}\n\nrpg: graphs/stats.json`)).toMatchObject({ kind: "text", text: "{ not json" });
  });

  it("without any block is the path of the first `rpg:` line, or none", () => {
    expect(issueRpg("Generate the stats graph.\n\nrpg: graphs/stats.json\nrpg: other.json")).toEqual({
      kind: "path",
      path: "graphs/stats.json",
    });
    expect(issueRpg("RPG: `graphs/report.json`  ")).toEqual({ kind: "path", path: "graphs/report.json" });
    expect(issueRpg("The rpg: graphs/stats.json is wrong\nrpg: two words")).toEqual({ kind: "path", path: undefined });
    expect(issueRpg("")).toEqual({ kind: "path", path: undefined });
  });

  it("takes an `rpg:` line beside a pasted graph as where to commit it, but not one inside a block", () => {
    expect(issueRpg(`rpg: graphs/new.json\n\n${fence("json", graph)}`)).toMatchObject({ kind: "text", path: "graphs/new.json" });
    expect(issueRpg(fence("yaml", "rpg: graphs/quoted.json"))).toEqual({ kind: "path", path: undefined });
  });

  it("reads bodies with CRLF line ends, as GitHub's web editor sends them, without carriage returns in the graph", () => {
    const asked = issueRpg(`Hi\r\n\r\n${fence("json", graph).replace(/\n/g, "\r\n")}\r\nrpg: g.json\r\n`);
    expect(asked).toEqual({ kind: "text", text: graph.trimEnd(), line: 4, path: "g.json" });
  });
});

describe("fenced blocks", () => {
  it("are not closed by fences inside JSON strings, nor by a shorter or different fence", () => {
    const doc = rpgDoc([leaf({ id: "a", docstring: "Example:\n```\n~~~\nx = 1\n```" })]);
    const compact = JSON.stringify(doc); // one line: strings hold the backticks
    const pretty = JSON.stringify(doc, null, 2);
    const [one] = fencedBlocks(fence("json", compact));
    expect(one?.content).toBe(compact);
    const [two] = fencedBlocks(fence("json", pretty, "~~~"));
    expect(two?.content).toBe(pretty);
    const wrapped = fence("json", "```\n~~~~\n```` x", "````");
    expect(fencedBlocks(wrapped).map((b) => b.content)).toEqual(["```\n~~~~\n```` x"]);
  });

  it("take off the opening fence's indentation, and ignore four-space indented or inline fences", () => {
    expect(fencedBlocks("  ```json\n  {\n    }\n  ```")).toEqual([{ language: "json", content: "{\n  }", line: 2 }]);
    expect(fencedBlocks("    ```json\n    {}\n    ```")).toEqual([]);
    expect(fencedBlocks("```json```\n{}")).toEqual([]);
  });

  it("left open run to the end of the text", () => {
    expect(fencedBlocks('```json\n{\n  "nodes": [')).toEqual([{ language: "json", content: '{\n  "nodes": [', line: 2 }]);
  });

  it("are found in linear time in a huge hostile body", () => {
    const hostile = `${"```json\n".repeat(1) + "`".repeat(200_000)}\n${"```\n".repeat(100_000)}${"rpg: x\n~~~\n".repeat(50_000)}`;
    // CPU time, not the wall clock: on a loaded machine the wall clock measures the other processes too. A pattern
    // that backtracks takes minutes on these; the scans take well under a second.
    const started = process.cpuUsage();
    fencedBlocks(hostile);
    issueRpg(hostile);
    issueRpg("```\n```".repeat(200_000));
    issueRpg(`${"rpg:".repeat(100_000)} ${" ".repeat(100_000)}x`);
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(2_000);
  });
});

describe("a path named in an issue", () => {
  it("is used when it stays inside the repository and out of .github/", () => {
    expect(issuePathProblem("graphs/stats.json")).toBeUndefined();
    expect(issuePathProblem("rpg.json")).toBeUndefined();
  });

  it("is refused when it leaves the repository, is not a plain path, or is in .github/", () => {
    for (const path of ["/etc/passwd", "../rpg.json", "a/../../b.json", "a//b.json", "./rpg.json", "a\\b.json", "a\u0007.json"])
      expect(issuePathProblem(path), path).toBeDefined();
    expect(issuePathProblem(".github/workflows/rpg-generate.yml")).toBe("must not be inside .github/");
    expect(issuePathProblem(".GitHub/rpg.json")).toBe("must not be inside .github/");
  });
});
