import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020Module from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { renderRpgJsonSchema, SCHEMA_PATH } from "../../scripts/write-json-schema.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

// ajv is CommonJS: under NodeNext the default import is module.exports, whose `default` is the class.
type Ajv2020Class = typeof Ajv2020Module.default;
const Ajv2020 = (Ajv2020Module as unknown as { default?: Ajv2020Class }).default ?? (Ajv2020Module as unknown as Ajv2020Class);

/** Every RPG the JSON Schema must accept: examples/<name>/rpg.json and the valid fixtures. */
async function validRpgFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(join(ROOT, "examples"), { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const names = await readdir(join(ROOT, "examples", entry.name));
    if (names.includes("rpg.json")) files.push(`examples/${entry.name}/rpg.json`);
  }
  const fixtures = await readdir(join(ROOT, "tests/fixtures/rpg")).catch(() => [] as string[]);
  for (const name of fixtures) if (name.endsWith(".json") && !name.startsWith("invalid-")) files.push(`tests/fixtures/rpg/${name}`);
  return files.sort();
}

const readJson = async (relative: string): Promise<unknown> => JSON.parse(await readFile(join(ROOT, relative), "utf8"));

/** A node with every required field, for the tests that break one thing at a time. */
const node = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  type: "function",
  node_type: "leaf",
  file_path: "src/pkg/mod.py",
  docstring: "Does one thing.",
  subgraph_id: "core",
  ...extra,
});

describe("docs/rpg.schema.json", () => {
  let validate: (data: unknown) => boolean;
  let errorsOf: () => string;

  beforeAll(async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    const compiled = ajv.compile(JSON.parse(await readFile(SCHEMA_PATH, "utf8")) as object);
    validate = (data) => compiled(data) as boolean;
    errorsOf = () => ajv.errorsText(compiled.errors);
  });

  it("is what scripts/write-json-schema.ts generates from src/rpg/schema.ts (run `npm run schema` if not)", async () => {
    expect(await readFile(SCHEMA_PATH, "utf8")).toBe(renderRpgJsonSchema());
  });

  it("accepts every example and every valid fixture", async () => {
    const files = await validRpgFiles();
    expect(files).toContain("examples/statkit/rpg.json");
    const rejected: string[] = [];
    for (const file of files) if (!validate(await readJson(file))) rejected.push(`${file}: ${errorsOf()}`);
    expect(rejected).toEqual([]);
  });

  it("accepts a minimal graph, with unknown keys kept (the loader warns about them instead)", () => {
    expect(validate({ nodes: [node("a")] })).toBe(true);
    expect(validate({ nodes: [node("a", { x_planner_score: 0.9 })], planner: "v2" })).toBe(true);
  });

  it.each(["id", "name", "type", "node_type", "file_path", "docstring", "subgraph_id"])("rejects a node without %s", (field) => {
    const broken: Record<string, unknown> = node("a");
    delete broken[field];
    expect(validate({ nodes: [broken] })).toBe(false);
    expect(errorsOf()).toContain(`must have required property '${field}'`);
  });

  it("rejects an edge type the format does not define", () => {
    const rpg = { nodes: [node("a"), node("b", { name: "b" })], edges: [{ source: "a", target: "b", type: "calls" }] };
    expect(validate(rpg)).toBe(false);
    expect(errorsOf()).toContain("/edges/0/type must be equal to one of the allowed values");
  });

  it("rejects a node_type other than leaf or composite, and a graph without nodes", () => {
    expect(validate({ nodes: [node("a", { node_type: "module" })] })).toBe(false);
    expect(validate({ edges: [] })).toBe(false);
  });
});
