import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeIntelligence } from "../../src/lsp/code-intelligence.js";
import { alive, readRepoFile, STAT_DEPENDENCY_CHECK, STAT_RPG, writeRepo } from "./fixture.js";

// The server is killed in the middle of the run: every operation after that still succeeds, through the parser.
let root: string;
let ci: CodeIntelligence;
const warnings: string[] = [];

beforeAll(async () => {
  root = writeRepo();
  ci = await CodeIntelligence.start({ root, onWarning: (w) => warnings.push(w) });
});

afterAll(async () => {
  await ci?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("a language server killed mid-run", () => {
  it("answers through the server until then", async () => {
    expect(await ci.findSymbol("validate_input")).toMatchObject({ via: "pyright", warnings: [] });
  });

  it("is replaced by Python's parser, with a warning, and the operation succeeds", async () => {
    const pid = ci.serverPid!;
    process.kill(pid, "SIGKILL");
    await until(() => !alive(pid));
    const found = await ci.findSymbol("calculate_mean");
    expect(found.via).toBe("ast");
    expect(found.value.map((m) => m.file)).toEqual(["src/statpkg/legacy.py", "src/statpkg/mean.py", "tools/quick.py"]);
    expect(found.warnings).toHaveLength(1);
    expect(found.warnings[0]).toMatch(
      /^pyright-langserver (exited|closed its connection|failed on).*Python's parser answers instead, for the rest of the run$/,
    );
    expect(warnings).toEqual(found.warnings);
    expect(ci.backend).toBe("ast");
  });

  it("finds the 5 call sites of validate_input without it", async () => {
    const { value, via, warnings: own } = await ci.findReferencingSymbols("validate_input");
    expect(via).toBe("ast");
    expect(own).toEqual([]); // said once, when it happened
    expect(value.references.filter((r) => r.kind === "call").map((r) => `${r.file}:${r.line} ${r.enclosing?.qualname}`)).toEqual([
      "src/statpkg/mean.py:6 calculate_mean",
      "src/statpkg/median.py:6 median",
      "src/statpkg/median.py:14 Summary.describe",
      "src/statpkg/spread.py:6 spread",
      "src/statpkg/spread.py:11 variance",
    ]);
  });

  it("renames the 4 call sites of format_row and its import without it", async () => {
    const outcome = await ci.renameSymbol("format_row", "format_record");
    expect(outcome).toMatchObject({ ok: true, via: "ast", files: ["src/statpkg/cli.py", "src/statpkg/report.py", "src/statpkg/table.py"] });
    const texts = ["report", "table", "cli"].map((m) => readRepoFile(root, `src/statpkg/${m}.py`));
    expect(texts.join("\n")).not.toContain("format_row");
    expect(texts.map((t) => t.match(/format_record\(/g)?.length ?? 0)).toEqual([2, 2, 1]);
    expect(texts[1]).toMatch(/^from \.report import format_record\n/);
  });

  it("replaces a body and refuses a clash without it", async () => {
    expect(await ci.replaceSymbolBody("clamp", "return min(high, max(low, x))")).toMatchObject({ ok: true, via: "ast" });
    expect(readRepoFile(root, "src/statpkg/shaping.py")).toContain(
      '    """Keep x within [low, high]."""\n    return min(high, max(low, x))\n',
    );
    expect(await ci.renameSymbol("slugify", "clean_text")).toMatchObject({ ok: false, via: "ast", code: "LSP_RENAME_COLLISION" });
  });

  it("checks the plan's dependencies without it, to the same result", async () => {
    expect(await ci.checkDependencies(STAT_RPG)).toEqual({
      via: "ast",
      // Without types, a method's references are every attribute of its name: said, not hidden.
      warnings: ["Summary.describe is a class member: the parser lists every .describe that could be it"],
      value: { via: "ast", ...STAT_DEPENDENCY_CHECK },
    });
  });

  it("closes cleanly", async () => {
    await ci.close();
    expect(ci.serverPid).toBeUndefined();
  });
});

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
}
