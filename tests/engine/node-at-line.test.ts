import { beforeAll, describe, expect, it } from "vitest";
import { nodeAtLine, type LineLookup } from "../../src/engine/node-at-line.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { findPython } from "../../src/sandbox/python.js";
import { rpgDoc, text } from "../helpers/rpg.js";

/** A review comment's file and line name the node it is about (issue 15): the lines of a real module and its tests. */

const leaf = (id: string, name: string, type: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  type,
  node_type: "leaf",
  file_path: "src/lab/words.py",
  docstring: `The ${name}.`,
  subgraph_id: "lab",
  ...extra,
});

const NODES = [
  leaf("VOWELS", "VOWELS", "constant"),
  leaf("count_vowels", "count_vowels", "function", { dependencies: ["VOWELS"] }),
  leaf("Word", "Word", "class"),
  leaf("Word.loud", "loud", "method", { parent_id: "Word" }),
];

const MODULE = [
  '"""Words."""', // 1
  "", // 2
  "import re", // 3
  "", // 4
  'VOWELS = frozenset("aeiou")', // 5
  "", // 6
  '_LETTER = re.compile(r"[a-z]")', // 7
  "", // 8
  "", // 9
  "def count_vowels(text: str) -> int:", // 10
  '    """How many vowels."""', // 11
  "    return sum(1 for ch in text if ch in VOWELS and _LETTER.match(ch))", // 12
  "", // 13
  "", // 14
  "class Word:", // 15
  '    """A word."""', // 16
  "", // 17
  "    def __init__(self, text: str) -> None:", // 18
  "        self.text = text", // 19
  "", // 20
  "    def loud(self) -> str:", // 21
  "        return self.text.upper()", // 22
  "", // 23
].join("\n");

const TESTS = [
  "from lab.words import count_vowels", // 1
  "", // 2
  "# --- rpg-forge tests: count_vowels ---", // 3
  "def test_count():", // 4
  '    assert count_vowels("cat") == 1', // 5
  "# --- end rpg-forge tests: count_vowels ---", // 6
  "", // 7
  "# --- rpg-forge tests: Word.loud ---", // 8
  "def test_loud():", // 9
  "    pass", // 10
  "# --- end rpg-forge tests: Word.loud ---", // 11
  "",
].join("\n");

describe("nodeAtLine", () => {
  let lookup: LineLookup;
  beforeAll(async () => {
    const loaded = parseRpgText(text(rpgDoc(NODES)), "rpg.json");
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    // count_vowels's code brought its private pattern along (its support code).
    const checkpoint = { nodes: { count_vowels: { owns: ["count_vowels", "_LETTER"] } } } as unknown as LineLookup["checkpoint"];
    lookup = { rpg: loaded.value, checkpoint, python: await findPython() };
  });

  it.each([
    [5, "VOWELS", "code"],
    [7, "count_vowels", "code"],
    [10, "count_vowels", "code"],
    [12, "count_vowels", "code"],
    [15, "Word", "code"],
    [19, "Word", "code"],
    [21, "Word.loud", "code"],
    [22, "Word.loud", "code"],
  ])("line %i of the module is %s's %s", async (line, nodeId, part) => {
    expect(await nodeAtLine(lookup, "src/lab/words.py", MODULE, line)).toEqual({ nodeId, part });
  });

  it.each([
    [4, "count_vowels"],
    [6, "count_vowels"],
    [9, "Word.loud"],
  ])("line %i of the tests is %s's tests", async (line, nodeId) => {
    expect(await nodeAtLine(lookup, "tests/test_words.py", TESTS, line)).toEqual({ nodeId, part: "tests" });
  });

  it("says why a line belongs to no node", async () => {
    expect(await nodeAtLine(lookup, "src/lab/words.py", MODULE, 3)).toEqual({ why: "the line is an import rpg-forge writes" });
    expect(await nodeAtLine(lookup, "src/lab/words.py", MODULE, 2)).toEqual({ why: "the line is outside every definition" });
    expect(await nodeAtLine(lookup, "tests/test_words.py", TESTS, 1)).toEqual({ why: "the line is outside every node's tests" });
    expect(await nodeAtLine(lookup, "pyproject.toml", "[project]\n", 1)).toEqual({
      why: "the file is not a module or test file of a node",
    });
    expect(await nodeAtLine(lookup, "src/lab/words.py", "def broken(:\n", 1)).toMatchObject({
      why: expect.stringMatching(/does not parse/),
    });
  });
});
