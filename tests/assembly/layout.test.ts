import { describe, expect, it } from "vitest";
import { moduleOf, packageDirectories, testFiles } from "../../src/assembly/layout.js";
import { findTestBlock, upsertTestBlock } from "../../src/assembly/test-blocks.js";
import { leaf } from "../helpers/rpg.js";
import type { RpgNode } from "../../src/rpg/schema.js";

const nodes = (specs: Parameters<typeof leaf>[0][]) => specs.map((s) => leaf(s) as unknown as RpgNode);

describe("package layout", () => {
  it("imports src/ modules without the src/ prefix", () => {
    expect(moduleOf("src/statkit/stats/descriptive.py")).toBe("statkit.stats.descriptive");
    expect(moduleOf("./pkg/core.py")).toBe("pkg.core");
    expect(moduleOf("src/statkit/__init__.py")).toBe("statkit");
  });

  it("puts a module's nodes in one test file, and keeps same-named modules apart", () => {
    const files = testFiles({
      nodes: nodes([
        { id: "a", file: "src/p/stats/utils.py" },
        { id: "b", file: "src/p/stats/utils.py", name: "g" },
        { id: "c", file: "src/p/report/utils.py" },
        { id: "d", file: "src/p/core.py" },
      ]),
    });
    expect(Object.fromEntries(files)).toEqual({
      a: "tests/test_p_stats_utils.py",
      b: "tests/test_p_stats_utils.py",
      c: "tests/test_p_report_utils.py",
      d: "tests/test_core.py",
    });
  });

  it("lists the package directories that need an __init__.py", () => {
    expect(
      packageDirectories({
        nodes: nodes([
          { id: "a", file: "src/p/stats/x.py" },
          { id: "b", file: "lib/y.py" },
        ]),
      }),
    ).toEqual(["lib", "src/p", "src/p/stats"]);
  });
});

describe("test blocks", () => {
  it("appends a node's block and replaces only that block later", () => {
    let source = upsertTestBlock("", "a", "def test_a():\n    assert 1\n");
    source = upsertTestBlock(source, "b", "def test_b():\n    assert 2\n");
    const replaced = upsertTestBlock(source, "a", "def test_a_new():\n    assert 3\n");
    expect(replaced).toBe(source.replace("def test_a():\n    assert 1", "def test_a_new():\n    assert 3"));
    expect(findTestBlock(replaced, "b")).toEqual({ start: 7, end: 10 });
  });
});
