import { describe, expect, it } from "vitest";
import { findPython } from "../../src/sandbox/python.js";
import { generateMutants, type Mutant } from "../../src/workspace/mutants.js";
import { outlinePython } from "../../src/workspace/python-outline.js";

const python = await findPython();

/** Lines with their endings, split where Python's parser ends a line. */
const linesOf = (text: string) => text.split(/(?<=\r\n|\r(?!\n)|\n)/);

/** The module's lines outside [start, end] (1-based), which a mutant of that range must keep byte for byte. */
function outside(text: string, start: number, end: number, total: number): { before: string[]; after: string[] } {
  const lines = linesOf(text);
  const afterCount = total - end;
  return { before: lines.slice(0, start - 1), after: afterCount > 0 ? lines.slice(-afterCount) : [] };
}

const CLAMP = `def clamp(n, low, high):
    """Clamp n into [low, high]."""
    if n < low:
        return low
    return min(n, high)
`;

const MODULE = [
  '"""Geometry, with a café."""\r\n',
  "import math  # for pi\r\n",
  "\r\n",
  "LIMIT = 10 if math.pi > 3 else 0\r\n",
  "\r\n",
  "\r\n",
  "def area(r):\r\n",
  "    return math.pi * r * r  # é\r\n",
  "\r\n",
  "\r\n",
  "class Shape:\r\n",
  '    """A shape."""\r\n',
  "\r\n",
  "    def fits(self, other):\r\n",
  "        if self.size() is None:\r\n",
  "            return False\r\n",
  "        return self.size() <= other.size()\r\n",
  "\r\n",
  "    def size(self):\r\n",
  "        return 1 if self.big == True else 0\r\n",
  "\r\n",
  "\r\n",
  "def tail(xs):\r\n",
  "    return xs[-1] if len(xs) != 0 else None\r\n",
].join("");

describe("generateMutants", () => {
  it("flips the first comparison, returns a constant and drops the first branch, in that order", async () => {
    const mutants = await generateMutants(python, CLAMP, { name: "clamp" });
    expect(mutants).toEqual([
      { kind: "comparison-flipped", description: "line 3: `<` became `>=`", source: CLAMP.replace("n < low", "n >= low") },
      {
        kind: "constant-returned",
        description: "line 3: the body of `clamp` became `return None`",
        source: 'def clamp(n, low, high):\n    """Clamp n into [low, high]."""\n    return None\n',
      },
      { kind: "branch-dropped", description: "line 3: `if n < low` became `if False`", source: CLAMP.replace("if n < low:", "if False:") },
    ]);
  });

  it("flips each comparison operator into its negation", async () => {
    const pairs = [
      ["==", "!="],
      ["!=", "=="],
      ["<", ">="],
      [">=", "<"],
      [">", "<="],
      ["<=", ">"],
      ["in", "not in"],
      ["not in", "in"],
      ["is", "is not"],
      ["is not", "is"],
    ];
    for (const [written, flipped] of pairs) {
      const source = `def f(a, b):\n    return a ${written} b\n`;
      const [first] = await generateMutants(python, source, { name: "f" }, 1);
      expect(first).toEqual({
        kind: "comparison-flipped",
        description: `line 2: \`${written}\` became \`${flipped}\``,
        source: `def f(a, b):\n    return a ${flipped} b\n`,
      });
    }
  });

  it("mutates a method and nothing else of its class", async () => {
    const mutants = await generateMutants(python, MODULE, { name: "fits", owner: "Shape" });
    expect(mutants.map((m) => [m.kind, m.description])).toEqual([
      ["comparison-flipped", "line 15: `is` became `is not`"],
      ["constant-returned", "line 15: the body of `Shape.fits` became `return None`"],
      ["branch-dropped", "line 15: `if self.size() is None` became `if False`"],
    ]);
    expect(mutants[0]!.source).toBe(MODULE.replace("self.size() is None", "self.size() is not None"));
    expect(mutants[1]!.source).toBe(
      MODULE.replace("if self.size() is None:\r\n            return False\r\n        return self.size() <= other.size()", "return None"),
    );
    expect(mutants[2]!.source).toBe(MODULE.replace("if self.size() is None:", "if False:"));
  });

  it("keeps every line outside the symbol byte for byte, line endings and non-ASCII text included", async () => {
    const outline = await outlinePython(python, MODULE);
    if (!outline.ok) throw new Error(outline.message);
    const total = linesOf(MODULE).length;
    const ranges: [{ name: string; owner?: string }, number, number][] = [
      [{ name: "LIMIT" }, 4, 4],
      [{ name: "area" }, 7, 8],
      [{ name: "Shape" }, 11, 20],
      [{ name: "fits", owner: "Shape" }, 14, 17],
      [{ name: "size", owner: "Shape" }, 19, 20],
      [{ name: "tail" }, 23, 24],
    ];
    for (const [symbol, start, end] of ranges) {
      const mutants = await generateMutants(python, MODULE, symbol, 10);
      expect(mutants.length, symbol.name).toBeGreaterThan(0);
      for (const mutant of mutants) {
        const mutantTotal = linesOf(mutant.source).length;
        const kept = outside(mutant.source, start, end + mutantTotal - total, mutantTotal);
        expect(kept, `${symbol.name}: ${mutant.description}`).toEqual(outside(MODULE, start, end, total));
        expect(mutant.source).not.toBe(MODULE);
      }
    }
  });

  it("gives only mutants that parse, each different from the original and from the others", async () => {
    for (const symbol of [{ name: "Shape" }, { name: "tail" }, { name: "size", owner: "Shape" }, { name: "LIMIT" }]) {
      const mutants = await generateMutants(python, MODULE, symbol, 10);
      for (const mutant of mutants) expect((await outlinePython(python, mutant.source)).ok, mutant.description).toBe(true);
      expect(new Set([MODULE, ...mutants.map((m) => m.source)]).size).toBe(mutants.length + 1);
    }
  });

  it("gives the same mutants in the same order for the same input", async () => {
    const first: Mutant[] = await generateMutants(python, MODULE, { name: "Shape" }, 10);
    const second = await generateMutants(python, MODULE, { name: "Shape" }, 10);
    expect(second).toEqual(first);
    expect(first.map((m) => m.kind)).toEqual([
      "comparison-flipped",
      "constant-returned",
      "branch-dropped",
      "comparison-flipped",
      "constant-returned",
      "branch-dropped",
      "comparison-flipped",
    ]);
  });

  it("takes the kinds in turn, so that a larger budget gives the later comparisons and branches too", async () => {
    const mutants = await generateMutants(python, MODULE, { name: "tail" }, 10);
    expect(mutants.map((m) => m.description)).toEqual([
      "line 24: `!=` became `==`",
      "line 24: the body of `tail` became `return None`",
      "line 24: `… if len(xs) != 0 else …` became `… if False else …`",
    ]);
    expect(await generateMutants(python, MODULE, { name: "tail" }, 1)).toHaveLength(1);
  });

  it("still returns a constant from a function with no comparison and no branch", async () => {
    const mutants = await generateMutants(python, MODULE, { name: "area" });
    expect(mutants).toEqual([
      {
        kind: "constant-returned",
        description: "line 8: the body of `area` became `return None`",
        source: MODULE.replace("return math.pi * r * r  # é", "return None  # é"),
      },
    ]);
  });

  it("returns no constant for a constant node, only its comparison and branch", async () => {
    const mutants = await generateMutants(python, MODULE, { name: "LIMIT" });
    expect(mutants.map((m) => m.kind)).toEqual(["comparison-flipped", "branch-dropped"]);
  });

  it("gives nothing for a symbol with nothing to mutate, a missing symbol or a module that does not parse", async () => {
    expect(await generateMutants(python, 'def f():\n    """Only a docstring."""\n', { name: "f" })).toEqual([]);
    expect(await generateMutants(python, "def f(x):\n    return None\n", { name: "f" })).toEqual([]);
    expect(await generateMutants(python, MODULE, { name: "missing" })).toEqual([]);
    expect(await generateMutants(python, MODULE, { name: "fits", owner: "Missing" })).toEqual([]);
    expect(await generateMutants(python, "def f(:\n", { name: "f" })).toEqual([]);
    expect(await generateMutants(python, CLAMP, { name: "clamp" }, 0)).toEqual([]);
  });

  it("finds the operator between parentheses, comments and line breaks", async () => {
    const source = "def f(a, b):\n    return ((a)  # left\n            not\n            in  # right\n            (b))\n";
    const [first] = await generateMutants(python, source, { name: "f" }, 1);
    expect(first).toEqual({
      kind: "comparison-flipped",
      description: "line 3: `not in` became `in`",
      source: "def f(a, b):\n    return ((a)  # left\n            in  # right\n            (b))\n",
    });
  });
});
