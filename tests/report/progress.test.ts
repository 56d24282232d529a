import { describe, expect, it } from "vitest";
import { progressPrinter } from "../../src/report/progress.js";
import { terminalLine, terminalText } from "../../src/report/terminal.js";

// Recolour, retitle the window, clear the screen, ring, return to the line start, and an 8-bit CSI.
const HOSTILE =
  "\u001b[31mred\u001b[0m \u001b]0;owned\u0007 \u001b]8;;https://evil\u001b\\link\u001b]8;;\u001b\\ \u001b[2J\u0007\r\u009b1Aup\u0000";
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("terminal text", () => {
  it("drops escape sequences and control characters, keeping the words", () => {
    expect(terminalLine(HOSTILE)).toBe("red  link   up ");
    expect(terminalText("a\u001b[1m\tb\nc\rd")).toBe("a\tb\ncd");
  });

  it("leaves printable text alone", () => {
    const plain = "✗ stats.mean failed: AssertionError: expected 2.0, got nan — ünïcödé";
    expect(terminalLine(plain)).toBe(plain);
  });
});

describe("progressPrinter", () => {
  it("prints a model's refusal and ids as one line each, without control characters", () => {
    const lines: string[] = [];
    const print = progressPrinter((text) => lines.push(text));
    print({ type: "run-started", runId: "r", total: 2, toRun: 2, resumed: false });
    print({
      type: "node-finished",
      nodeId: `a${HOSTILE}`,
      status: "failed",
      durationMs: 1,
      iterations: 8,
      reason: `I won't.\n${HOSTILE}\nFAKE ✓ passed`,
    });
    print({ type: "node-finished", nodeId: "b", status: "skipped", durationMs: 0, blockedBy: [`a${HOSTILE}`] });
    print({
      type: "batch-written",
      nodeIds: ["c"],
      files: ["src/x.py"],
      failed: [{ nodeId: "c", reason: `disk\r${HOSTILE}` }],
      blocked: [],
    });
    print({ type: "subgraph-committed", subgraphId: `core${HOSTILE}`, sha: "0123456789", tag: "rpg/r/core" });
    const out = lines.join("");
    expect(out).not.toMatch(CONTROL);
    expect(out.split("\n")).toHaveLength(lines.length + 1); // each print is one line, whatever the text held
    expect(out).toContain("failed after 8 debug iterations: I won't. red  link   up  FAKE ✓ passed\n");
  });
});

describe("the dependency check's line", () => {
  it("names the implementation that answered and the share found, marked against the target", () => {
    const lines: string[] = [];
    const print = progressPrinter((text) => lines.push(text));
    print({ type: "dependency-checked", via: "pyright", target: 0.8, planned: 12, confirmed: 12, share: 1, meetsTarget: true });
    print({ type: "dependency-checked", via: "ast", target: 0.8, planned: 4, confirmed: 3, share: 0.75, meetsTarget: false });
    print({ type: "dependency-checked", via: "ast", target: 0.8, planned: 0, confirmed: 0, share: null, meetsTarget: true });
    expect(lines).toEqual([
      "✓ Dependency check by pyright-langserver: 12 of 12 planned dependencies found in the code (100%; target 80%)\n",
      "✗ Dependency check by Python's parser: 3 of 4 planned dependencies found in the code (75%; target 80%)\n",
      "✓ Dependency check by Python's parser: no planned dependency between two generated nodes to look for\n",
    ]);
  });
});
