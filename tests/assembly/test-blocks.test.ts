import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { findPython } from "../../src/sandbox/python.js";
import { containsTestMarker, encodeNodeId, findTestBlock, testMarkerLines, upsertTestBlock } from "../../src/assembly/test-blocks.js";

const TEST_A = "def test_a():\n    assert 1\n";

describe("test-block markers", () => {
  it("leaves ids of plain characters as they are, so existing files keep their markers", () => {
    expect(encodeNodeId("stats.mean")).toBe("stats.mean");
    expect(encodeNodeId("pkg/mod.py:Class.method-2_x")).toBe("pkg/mod.py:Class.method-2_x");
    expect(upsertTestBlock("", "stats.mean", TEST_A)).toBe(
      "# --- rpg-forge tests: stats.mean ---\ndef test_a():\n    assert 1\n# --- end rpg-forge tests: stats.mean ---\n",
    );
  });

  it("keeps an id holding a newline inside its comment, so it cannot inject Python", async () => {
    const id = "mean\nimport os; os._exit(0)\n#";
    const source = upsertTestBlock("", id, TEST_A);
    expect(source.split("\n").filter((l) => !l.startsWith("#"))).toEqual(["def test_a():", "    assert 1", ""]);
    expect(source).toContain("# --- rpg-forge tests: mean%0Aimport%20os%3B%20os._exit%280%29%0A%23 ---");
    // Python agrees: the file holds one statement, the test.
    const count = execFileSync(await findPython(), ["-c", "import ast, sys; print(len(ast.parse(sys.stdin.read()).body))"], {
      input: source,
      encoding: "utf8",
    });
    expect(count.trim()).toBe("1");
  });

  it("encodes distinct ids distinctly, % included", () => {
    const ids = ["a b", "a%20b", "a%2520b", "a\rb", "a\u2028b", "😀", "\ud800", "\ufffd", "a --- b"];
    expect(new Set(ids.map(encodeNodeId)).size).toBe(ids.length);
    for (const id of ids) expect(encodeNodeId(id)).toMatch(/^[A-Za-z0-9._:/%-]+$/);
  });

  it("finds and replaces each block by id, whatever the id holds", () => {
    const ids = ["a b", "a%20b", "mean\n#", "😀", "\ud800x"];
    let source = "";
    for (const [i, id] of ids.entries()) source = upsertTestBlock(source, id, `def test_${i}():\n    assert ${i}\n`);
    const replaced = upsertTestBlock(source, "a%20b", "def test_new():\n    assert 9\n");
    expect(replaced).toBe(source.replace("def test_1():\n    assert 1", "def test_new():\n    assert 9"));
    for (const id of ids) expect(findTestBlock(replaced, id)).toBeDefined();
  });

  it("still finds a block written before ids were encoded, and rewrites its markers", () => {
    const old =
      "import pytest\n\n\n# --- rpg-forge tests: stats mean ---\ndef test_a():\n    assert 1\n# --- end rpg-forge tests: stats mean ---\n";
    expect(findTestBlock(old, "stats mean")).toEqual({ start: 4, end: 7 });
    expect(upsertTestBlock(old, "stats mean", "def test_b():\n    assert 2\n")).toBe(
      "import pytest\n\n\n# --- rpg-forge tests: stats%20mean ---\ndef test_b():\n    assert 2\n# --- end rpg-forge tests: stats%20mean ---\n",
    );
  });

  it("does not take another node's encoded block for an id holding %", () => {
    const source = upsertTestBlock("", "a b", TEST_A);
    expect(findTestBlock(source, "a%20b")).toBeUndefined();
  });
});

describe("containsTestMarker", () => {
  it.each([
    "# --- rpg-forge tests: stats.mean ---",
    "# --- end rpg-forge tests: stats.mean ---",
    "    #---END RPG-FORGE TESTS: x---",
    "# rpg forge tests: x",
    "#--- end rpg_forge test: x",
  ])("finds %j", (line) => {
    expect(containsTestMarker(`x = """\n${line}\n"""`)).toBe(true);
  });

  it("counts lines as Python does, \\r included", () => {
    expect(testMarkerLines('s = "a"\r# --- end rpg-forge tests: a ---\r\nx = 1')).toEqual([2]);
    expect(testMarkerLines("a = 1\n\n  # --- rpg-forge tests: b ---\n")).toEqual([3]);
  });

  it("ignores ordinary comments and code mentioning rpg-forge", () => {
    expect(containsTestMarker('# tests for rpg-forge output\nname = "rpg-forge tests: x"\n')).toBe(false);
  });
});
