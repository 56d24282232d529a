import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeIntelligence } from "../../src/lsp/code-intelligence.js";
import { DependencyCheckSchema } from "../../src/lsp/schema.js";
import { readRepoFile, STAT_DEPENDENCY_CHECK, STAT_REPO, STAT_RPG, writeRepo } from "./fixture.js";

// One real pyright-langserver for the whole file, on real Python files: each test works on names of its own.
let root: string;
let ci: CodeIntelligence;
const warnings: string[] = [];

beforeAll(async () => {
  root = writeRepo();
  ci = await CodeIntelligence.start({ root, onWarning: (w) => warnings.push(w) });
  expect(ci.backend).toBe("pyright");
});

afterAll(async () => {
  await ci?.close();
  rmSync(root, { recursive: true, force: true });
  // Nothing in this file is meant to make the server fail or the parser stand in.
  expect(warnings).toEqual([]);
});

describe("find_symbol", () => {
  it("finds every definition of a name defined in 3 files, with signature, docstring and preview", async () => {
    const found = await ci.findSymbol("calculate_mean");
    expect(found.via).toBe("pyright");
    expect(found.value.map((m) => `${m.file}:${m.line}:${m.column}`)).toEqual([
      "src/statpkg/legacy.py:1:5",
      "src/statpkg/mean.py:4:5",
      "tools/quick.py:4:5",
    ]);
    const mean = found.value[1]!;
    expect(mean.signature).toBe("def calculate_mean(values: list[float]) -> float:");
    expect(mean.docstring).toBe("The arithmetic mean of the values.");
    expect(mean.preview.split("\n")).toEqual(STAT_REPO["src/statpkg/mean.py"]!.split("\n").slice(3, 7));
    expect(found.value[2]!.docstring).toBeNull();
  });

  it("finds a method by Class.method, decorators in its start line", async () => {
    const found = await ci.findSymbol("Summary.describe");
    expect(found.value).toMatchObject([
      { qualname: "Summary.describe", kind: "method", file: "src/statpkg/median.py", line: 13, startLine: 13 },
    ]);
    const decorated = await ci.findSymbol({ name: "normalize", file: "src/statpkg/shaping.py" });
    expect(decorated.value).toMatchObject([{ kind: "function", line: 15, startLine: 14 }]);
    expect((await ci.findSymbol("Summary.nothing")).value).toEqual([]);
  });
});

describe("find_referencing_symbols", () => {
  it("finds the 5 call sites of validate_input, each with the definition it is written in", async () => {
    const { value, via } = await ci.findReferencingSymbols("validate_input");
    expect(via).toBe("pyright");
    expect(value.targets.map((t) => t.file)).toEqual(["src/statpkg/validation.py"]);
    const calls = value.references.filter((r) => r.kind === "call");
    expect(calls.map((r) => `${r.file}:${r.line} ${r.enclosing?.qualname}`)).toEqual([
      "src/statpkg/mean.py:6 calculate_mean",
      "src/statpkg/median.py:6 median",
      "src/statpkg/median.py:14 Summary.describe",
      "src/statpkg/spread.py:6 spread",
      "src/statpkg/spread.py:11 variance",
    ]);
    expect(calls[3]!.text).toBe("data = validation.validate_input(values)");
    // The imports are references too, named as such, at module level.
    const imports = value.references.filter((r) => r.kind === "import");
    expect(imports.map((r) => r.file)).toEqual([
      "src/statpkg/__init__.py",
      "src/statpkg/mean.py",
      "src/statpkg/median.py",
      "src/statpkg/spread.py",
    ]);
    expect(imports.every((r) => r.enclosing === null)).toBe(true);
  });

  it("takes a definition's location as well as its name", async () => {
    const { value } = await ci.findReferencingSymbols({ file: "src/statpkg/median.py", line: 13 });
    expect(value.targets.map((t) => t.qualname)).toEqual(["Summary.describe"]);
    expect(value.references).toEqual([]);
  });
});

describe("replace_symbol_body", () => {
  it("changes only the body: decorators, signature, docstring and every other line stay byte for byte", async () => {
    const rel = "src/statpkg/shaping.py";
    const before = readRepoFile(root, rel).split("\n");
    const outcome = await ci.replaceSymbolBody(
      { name: "normalize" },
      "total = sum(values) or 1\nreturn [v * scale / total for v in values]\n",
    );
    expect(outcome).toMatchObject({ ok: true, via: "pyright", files: [rel], lines: [20, 21] });
    const after = readRepoFile(root, rel).split("\n");
    // Lines 20-25 held the body (its leading and trailing comments included); 1-19 and 26- are untouched.
    const expected = [
      ...before.slice(0, 19),
      "    total = sum(values) or 1",
      "    return [v * scale / total for v in values]",
      ...before.slice(25),
    ];
    expect(Buffer.from(after.join("\n"))).toEqual(Buffer.from(expected.join("\n")));
  });

  it("writes nothing when the new body would not parse", async () => {
    const rel = "src/statpkg/shaping.py";
    const before = readRepoFile(root, rel);
    const outcome = await ci.replaceSymbolBody("clamp", "return max(low, min(high, x)\n");
    expect(outcome).toMatchObject({ ok: false, code: "LSP_EDIT_DOES_NOT_PARSE", at: [{ file: rel }] });
    expect(readRepoFile(root, rel)).toBe(before);
    expect(readdirSync(join(root, "src/statpkg")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

describe("insert_after_symbol / insert_before_symbol", () => {
  it("adds a method to a class after an existing method, leaving every other line in place", async () => {
    const rel = "src/statpkg/shaping.py";
    const before = readRepoFile(root, rel).split("\n");
    const outcome = await ci.insertAfterSymbol("Accumulator.add", "def reset(self):\n    self.items.clear()\n");
    expect(outcome.ok).toBe(true);
    const after = readRepoFile(root, rel).split("\n");
    const at = after.indexOf("    def reset(self):");
    expect(after.slice(at - 3, at + 4)).toEqual([
      "    def add(self, value):",
      "        self.items.append(value)",
      "",
      "    def reset(self):",
      "        self.items.clear()",
      "",
      "    def total(self):",
    ]);
    expect([...after.slice(0, at - 1), ...after.slice(at + 2)]).toEqual(before);
    const reset = await ci.findSymbol("Accumulator.reset");
    expect(reset).toMatchObject({ via: "pyright", value: [{ kind: "method", line: at + 1 }] });
  });

  it("puts a helper above a function, above its decorator", async () => {
    const outcome = await ci.insertBeforeSymbol("clamp", "def _bounds():\n    return 0.0, 1.0");
    expect(outcome.ok).toBe(true);
    const text = readRepoFile(root, "src/statpkg/shaping.py");
    expect(text).toContain("\n\n\ndef _bounds():\n    return 0.0, 1.0\n\n\n@functools.cache\ndef clamp(");
  });
});

describe("rename_symbol", () => {
  it("renames a function with the server's own rename: its 4 call sites and the import, in 3 files", async () => {
    const outcome = await ci.renameSymbol("format_row", "format_record");
    expect(outcome).toMatchObject({
      ok: true,
      via: "pyright",
      files: ["src/statpkg/cli.py", "src/statpkg/report.py", "src/statpkg/table.py"],
    });
    const texts = ["report", "table", "cli"].map((m) => readRepoFile(root, `src/statpkg/${m}.py`));
    expect(texts.join("\n")).not.toContain("format_row");
    expect(texts.map((t) => t.match(/format_record\(/g)?.length ?? 0)).toEqual([2, 2, 1]); // the def and 4 calls
    expect(texts[1]).toMatch(/^from \.report import format_record\n/);
    expect(texts[2]).toContain("print(report.format_record(argv[0], float(argv[1])))");
    expect((await ci.findSymbol("format_record")).value).toHaveLength(1);
  });

  it("refuses a new name already bound in the symbol's scope, and writes nothing", async () => {
    const before = readRepoFile(root, "src/statpkg/text.py");
    const outcome = await ci.renameSymbol("slugify", "clean_text");
    expect(outcome).toMatchObject({ ok: false, code: "LSP_RENAME_COLLISION", at: [{ file: "src/statpkg/text.py", line: 5 }] });
    expect(readRepoFile(root, "src/statpkg/text.py")).toBe(before);
    expect(await ci.renameSymbol("slugify", "class")).toMatchObject({ ok: false, code: "LSP_RENAME_INVALID_NAME" });
  });
});

describe("files changed on disk", () => {
  it("are announced to the server, whose index then has them", async () => {
    writeFileSync(
      join(root, "src/statpkg/late.py"),
      "from .validation import validate_input\n\n\ndef late_addition(v):\n    return validate_input(v)\n",
    );
    await ci.filesChanged(["src/statpkg/late.py"]);
    const found = await ci.findSymbol("late_addition");
    // Found by the server's own index: the parser's second look would have said so in a warning.
    expect(found).toMatchObject({ via: "pyright", warnings: [], value: [{ file: "src/statpkg/late.py", line: 4 }] });
    const { value } = await ci.findReferencingSymbols("validate_input");
    expect(value.references.filter((r) => r.kind === "call").map((r) => r.enclosing?.qualname)).toContain("late_addition");
  });
});

describe("dependency check", () => {
  it("confirms the planned dependencies the code has, and lists those it lacks and the calls nobody planned", async () => {
    const { value, via } = await ci.checkDependencies(STAT_RPG);
    expect(via).toBe("pyright");
    expect(DependencyCheckSchema.parse(value)).toEqual({ via: "pyright", ...STAT_DEPENDENCY_CHECK });
  });
});

describe("the server's process", () => {
  it.runIf(existsSync("/proc/self/environ"))("gets no environment of ours, and a PATH on which it finds no program to run", () => {
    const environ = readFileSync(`/proc/${ci.serverPid}/environ`, "utf8").split("\0").filter(Boolean);
    expect(environ).toHaveLength(1);
    const path = environ[0]!.replace(/^PATH=/, "");
    expect(path).not.toBe(environ[0]);
    expect(path.split(":").filter((dir) => existsSync(dir))).toEqual([]);
  });
});
