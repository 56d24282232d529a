import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CodeViewer } from "../../src/localize/code-view.js";
import { renderCodeView } from "../../src/localize/render.js";
import { helperTraffic } from "../../src/python-helpers/worker.js";
import type { Rpg, RpgNode } from "../../src/rpg/schema.js";
import { failure } from "../helpers/errors.js";
import { sharedExample } from "../helpers/shared-example.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const PYTHON = "python3";
const tempDir = useTempDirs();

const DESCRIPTIVE = `"""Central tendency.

Means and medians."""
import math

from stats_kit.validation import validate_input

LIMIT: int = 10


def calculate_mean(numbers: list[float]) -> float:
    """Return the arithmetic mean of numbers.

    Raises:
        ValueError: If numbers is empty.
    """
    values = validate_input(numbers)
    return math.fsum(values) / len(values)


@functools.cache
def calculate_median(
    numbers: list[float],
    *,
    presorted: bool = False,
) -> float:
    ordered = numbers if presorted else sorted(numbers)
    return ordered[len(ordered) // 2]


class Summary:
    """Figures of one column."""

    def __init__(self, numbers: list[float]) -> None:
        self.numbers = numbers

    async def total(self, start: float = 0.0) -> float:
        """Sum of the numbers."""
        return start + sum(self.numbers)
`;

function repo(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const node = (id: string, name: string, extra: Partial<RpgNode> = {}): RpgNode => ({
  id,
  name,
  type: "function",
  node_type: "leaf",
  file_path: "src/stats_kit/descriptive.py",
  docstring: `${name}.`,
  dependencies: [],
  subgraph_id: "stats",
  ...extra,
});
const RPG: Pick<Rpg, "nodes"> = {
  nodes: [
    node("stats.calculate_mean", "calculate_mean"),
    node("stats.summary", "Summary", { type: "class" }),
    node("stats.summary_total", "total", { type: "method", parent_id: "stats.summary" }),
    node("stats.mode", "mode", { status: "failed" }),
    node("report.format", "format_report", { file_path: "src/stats_kit/report.py", status: "pending" }),
  ],
};

describe("CodeViewer on Python files", () => {
  it("test_code_view_signatures: the outline lists each function and class with its type hints and docstring's first line", async () => {
    const dir = repo({ "src/stats_kit/descriptive.py": DESCRIPTIVE });
    const view = await new CodeViewer(dir, { python: PYTHON }).view({ file: "src/stats_kit/descriptive.py" }, { outline: true });
    expect(view.kind).toBe("outline");
    if (view.kind !== "outline") return;
    expect(view.doc).toBe("Central tendency.");
    const defs = view.statements.filter((s) => s.kind === "def" || s.kind === "class");
    expect(defs.map((s) => [s.name, s.header, s.doc ?? null])).toEqual([
      ["calculate_mean", "def calculate_mean(numbers: list[float]) -> float:", "Return the arithmetic mean of numbers."],
      // A header over several lines is joined onto one.
      ["calculate_median", "def calculate_median(numbers: list[float], *, presorted: bool = False) -> float:", null],
      ["Summary", "class Summary:", "Figures of one column."],
    ]);
    expect(defs[1]!.decorators).toEqual(["@functools.cache"]);
    expect(defs[2]!.members!.map((m) => m.header)).toEqual([
      "def __init__(self, numbers: list[float]) -> None:",
      "async def total(self, start: float = 0.0) -> float:",
    ]);
    const text = renderCodeView(view);
    expect(text).toContain("11  def calculate_mean(numbers: list[float]) -> float:  # Return the arithmetic mean of numbers.\n");
    expect(text).toContain("     async def total(self, start: float = 0.0) -> float:  # Sum of the numbers.\n");
    expect(text).toContain("  8  LIMIT: int = ...\n");
    // Interfaces only: no body line is in the outline.
    expect(text).not.toContain("math.fsum");
  });

  it("shows a node's symbol as its source lines, decorators included; a method by Class.method", async () => {
    const dir = repo({ "src/stats_kit/descriptive.py": DESCRIPTIVE });
    const viewer = new CodeViewer(dir, { python: PYTHON, rpg: RPG });
    const lines = DESCRIPTIVE.split("\n");
    const mean = await viewer.view({ nodeId: "stats.calculate_mean" });
    expect(mean).toMatchObject({
      kind: "source",
      symbol: "calculate_mean",
      startLine: 11,
      endLine: 18,
      text: lines.slice(10, 18).join("\n"),
    });
    const total = await viewer.view({ nodeId: "stats.summary_total" });
    expect(total).toMatchObject({ kind: "source", symbol: "Summary.total", startLine: 37, endLine: 39 });
    const median = await viewer.view({ file: "src/stats_kit/descriptive.py", symbol: "calculate_median" });
    expect(median).toMatchObject({ kind: "source", startLine: 21, endLine: 28 });
    expect(renderCodeView(median).split("\n").slice(0, 3)).toEqual([
      "# src/stats_kit/descriptive.py calculate_median: lines 21-28 of 39",
      "21 | @functools.cache",
      "22 | def calculate_median(",
    ]);
  });

  it('shows "not yet generated" for a node whose file or symbol does not exist yet, with its status', async () => {
    const dir = repo({ "src/stats_kit/descriptive.py": DESCRIPTIVE });
    const viewer = new CodeViewer(dir, { python: PYTHON, rpg: RPG });
    const noFile = await viewer.view({ nodeId: "report.format" });
    expect(noFile).toMatchObject({ kind: "missing", absent: "file", notGenerated: true, status: "pending" });
    expect(renderCodeView(noFile)).toBe(
      "src/stats_kit/report.py (node report.format, pending): not yet generated: src/stats_kit/report.py does not exist (status: pending)\n",
    );
    const noSymbol = await viewer.view({ nodeId: "stats.mode" }, { outline: true });
    expect(noSymbol).toMatchObject({ kind: "missing", absent: "symbol", notGenerated: true, status: "failed" });
    if (noSymbol.kind === "missing")
      expect(noSymbol.message).toBe("not yet generated: src/stats_kit/descriptive.py defines no mode (status: failed)");
  });

  it("shows the whole file, saying why, when the node's file does not parse", async () => {
    const broken = `def calculate_mean(numbers):\n    return sum(numbers) / len(numbers\n`;
    const dir = repo({ "src/stats_kit/descriptive.py": broken });
    const view = await new CodeViewer(dir, { python: PYTHON, rpg: RPG }).view({ nodeId: "stats.calculate_mean" });
    expect(view).toMatchObject({ kind: "source", startLine: 1, endLine: 2, text: broken.trimEnd() });
    if (view.kind === "source") expect(view.note).toMatch(/^src\/stats_kit\/descriptive\.py does not parse \(line \d+: /);
    const outline = await new CodeViewer(dir, { python: PYTHON }).view({ file: "src/stats_kit/descriptive.py" }, { outline: true });
    expect(outline).toMatchObject({ kind: "outline", statements: [], parseError: { line: expect.any(Number) } });
  });

  it("reads and parses a file once while it is unchanged, and again as soon as it changes", async () => {
    const dir = repo({ "m.py": "def f(x: int) -> int:\n    return x\n" });
    const viewer = new CodeViewer(dir, { python: PYTHON });
    await viewer.view({ file: "m.py" }, { outline: true });
    const before = helperTraffic().requests;
    await viewer.view({ file: "m.py" }, { outline: true });
    await viewer.view({ file: "m.py", symbol: "f" });
    expect(helperTraffic().requests).toBe(before);
    writeFileSync(join(dir, "m.py"), "def g(y: str) -> str:\n    return y\n");
    const changed = await viewer.view({ file: "m.py" }, { outline: true });
    expect(changed.kind === "outline" && changed.statements.map((s) => s.header)).toEqual(["def g(y: str) -> str:"]);
    expect(helperTraffic().requests).toBe(before + 1);
  });

  it("refuses paths outside the package, into .git/ or .rpg-forge/, through a link, or not of Python", async () => {
    const dir = repo({ "pkg/m.py": "x = 1\n", ".git/hooks.py": "", ".rpg-forge/runs/a.py": "", "notes.txt": "" });
    const outside = repo({ "secret.py": "KEY = 1\n" });
    symlinkSync(outside, join(dir, "pkg", "linked"));
    const viewer = new CodeViewer(dir, { python: PYTHON });
    for (const path of [
      "../secret.py",
      join(outside, "secret.py"),
      ".git/hooks.py",
      ".rpg-forge/runs/a.py",
      "notes.txt",
      "pkg/linked/secret.py",
    ]) {
      const error = await failure(viewer.view({ file: path }));
      expect(error.code, path).toBe("LOCALIZE_PATH_REFUSED");
    }
    await expect(viewer.view({ file: join(dir, "pkg/m.py") })).resolves.toMatchObject({ kind: "source", file: "pkg/m.py", text: "x = 1" });
  });

  it("refuses a node id the RPG does not have", async () => {
    const error = await failure(new CodeViewer(tempDir(), { python: PYTHON, rpg: RPG }).view({ nodeId: "stats.nope" }));
    expect(error).toMatchObject({ code: "LOCALIZE_UNKNOWN_NODE", at: { nodeId: "stats.nope" } });
  });
});

describe("CodeViewer on the generated example", () => {
  let dir: string;
  let rpg: Rpg;
  beforeAll(async () => {
    dir = (await sharedExample()).dir;
    rpg = JSON.parse(readFileSync(join(dir, "docs", "rpg.json"), "utf8")) as Rpg;
  }, 600_000);

  it("shows a passed node's function exactly as the package has it", async () => {
    const view = await new CodeViewer(dir, { python: PYTHON, rpg }).view({ nodeId: "stats.variance" });
    expect(view).toMatchObject({ kind: "source", file: "src/statkit/stats/spread.py", symbol: "variance", status: "passed" });
    if (view.kind !== "source") return;
    const lines = readFileSync(join(dir, "src/statkit/stats/spread.py"), "utf8").split("\n");
    expect(view.text).toBe(lines.slice(view.startLine - 1, view.endLine).join("\n"));
    expect(view.text).toMatch(/^def variance\(values: list\[float\], sample: bool = False\) -> float:\n/);
  });

  it("outlines a generated module: every function with its signature, no body", async () => {
    const view = await new CodeViewer(dir, { python: PYTHON, rpg }).view({ nodeId: "stats.mean" }, { outline: true });
    expect(view.kind).toBe("outline");
    const text = renderCodeView(view);
    for (const name of ["mean", "median", "mode", "percentile"])
      expect(text).toMatch(new RegExp(`\\d+  def ${name}\\(values: list\\[float\\]`));
    expect(text).toMatch(/^>\s*\d+ {2}def mean\(/m); // the node's own symbol is marked
    expect(text).not.toContain("return ");
  });

  it('shows the failed node, whose files were restored, as "not yet generated"', async () => {
    const view = await new CodeViewer(dir, { python: PYTHON, rpg }).view({ nodeId: "report.format_number" });
    expect(view).toMatchObject({ kind: "missing", notGenerated: true, status: "failed" });
  });
});
