import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseRpgText } from "../../src/rpg/load.js";
import type { RpgIssue } from "../../src/rpg/issues.js";
import { chain, composite, leaf, rpgDoc, text } from "../helpers/rpg.js";

function problems(doc: unknown): RpgIssue[] {
  const loaded = parseRpgText(typeof doc === "string" ? doc : text(doc), "rpg.json");
  return loaded.ok ? loaded.warnings : loaded.issues;
}
const errors = (doc: unknown) => problems(doc).filter((i) => i.severity === "error");
const codes = (doc: unknown) => errors(doc).map((i) => i.code);

describe("parseRpgText", () => {
  it("accepts the PRD's appendix A example exactly as written", () => {
    const appendixA = {
      nodes: [
        {
          id: "node_001",
          name: "calculate_mean",
          type: "function",
          node_type: "leaf",
          file_path: "src/stats/descriptive.py",
          docstring:
            "Calculate arithmetic mean of numbers.\n\nArgs:\n    numbers: List of floats\nReturns:\n    float: Mean value\nRaises:\n    ValueError: If list is empty",
          dependencies: ["node_002"],
          subgraph_id: "stats",
        },
        {
          id: "node_002",
          name: "validate_numbers",
          type: "function",
          node_type: "leaf",
          file_path: "src/stats/validation.py",
          docstring: "Check numbers.",
          dependencies: [],
          subgraph_id: "stats",
        },
      ],
      edges: [{ source: "node_001", target: "node_002", type: "function_call" }],
      metadata: { phase: 3, timestamp: "2026-02-07T10:30:00Z", nl_spec_path: "docs/nl_spec.md" },
    };
    const loaded = parseRpgText(text(appendixA), "rpg.json");
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect(loaded.warnings).toEqual([]);
  });

  it("accepts the shipped example", () => {
    const loaded = parseRpgText(readFileSync("examples/statkit/rpg.json", "utf8"), "examples/statkit/rpg.json");
    expect(loaded.ok ? [] : loaded.issues).toEqual([]);
  });

  it("fills in defaults for optional lists", () => {
    const loaded = parseRpgText(JSON.stringify({ nodes: [{ ...leaf({ id: "a" }), dependencies: undefined }] }), "rpg.json");
    expect(loaded.ok && loaded.value.nodes[0]!.dependencies).toEqual([]);
    expect(loaded.ok && loaded.value.edges).toEqual([]);
  });

  it("names the line and column of malformed JSON", () => {
    const issues = problems('{\n  "nodes": [\n    { "id": "a", }\n  ]\n}\n');
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: "RPG_JSON_SYNTAX", at: { file: "rpg.json", line: 3, column: 18 } });
    expect(issues[0]!.message).toMatch(/property name expected at line 3, column 18/);
  });

  it("names the end of a truncated file", () => {
    const [issue] = problems('{\n  "nodes": [\n');
    expect(issue).toMatchObject({ code: "RPG_JSON_SYNTAX", at: { line: 3 } });
  });

  it("rejects a file that is not an object", () => {
    expect(codes("[1, 2]")).toEqual(["RPG_SCHEMA"]);
  });

  it("rejects an empty graph and a graph without nodes", () => {
    expect(codes({ nodes: [] })).toEqual(["RPG_EMPTY"]);
    expect(codes({ edges: [] })).toEqual(["RPG_MISSING_FIELD"]);
  });

  it("names the node id and field of a missing or mistyped field, with its line", () => {
    const doc = rpgDoc([leaf({ id: "a" }), { ...leaf({ id: "b" }), docstring: undefined, subgraph_id: 7 }]);
    const found = errors(doc);
    expect(found.map((i) => [i.code, i.at.nodeId, i.at.field])).toEqual([
      ["RPG_MISSING_FIELD", "b", "docstring"],
      ["RPG_FIELD_TYPE", "b", "subgraph_id"],
    ]);
    expect(found[0]!.message).toBe('required field "docstring" is missing');
    const lines = text(doc).split("\n");
    expect(lines[found[1]!.at.line! - 1]).toContain('"subgraph_id": 7');
  });

  it("rejects a node_type that is neither leaf nor composite", () => {
    const [issue] = errors(rpgDoc([leaf({ id: "a", node_type: "function" })]));
    expect(issue).toMatchObject({ code: "RPG_INVALID_VALUE", at: { nodeId: "a", field: "node_type" } });
  });

  it("rejects an unknown edge type, naming the edge", () => {
    const [issue] = errors(rpgDoc([leaf({ id: "a" }), leaf({ id: "b" })], [{ source: "a", target: "b", type: "calls" }]));
    expect(issue).toMatchObject({ code: "RPG_UNKNOWN_EDGE_TYPE", at: { nodeId: "a", field: "edges[0].type" } });
    expect(issue!.message).toContain('"calls"');
  });

  it("warns about unknown keys but keeps the graph valid", () => {
    const loaded = parseRpgText(text(rpgDoc([leaf({ id: "a", dependecies: ["b"] })])), "rpg.json");
    expect(loaded.ok).toBe(true);
    if (loaded.ok)
      expect(loaded.warnings.map((w) => [w.code, w.at.nodeId, w.at.field])).toEqual([["RPG_UNKNOWN_FIELD", "a", "dependecies"]]);
  });

  it("keeps unknown keys, at the top level too, for docs/rpg.json", () => {
    const loaded = parseRpgText(text({ ...rpgDoc([leaf({ id: "a", owner: "team-x" })]), planner: { version: 3 } }), "rpg.json");
    expect(loaded.ok && loaded.value.planner).toEqual({ version: 3 });
    expect(loaded.ok && loaded.value.nodes[0]!.owner).toBe("team-x");
  });

  it("treats a module named my__init__.py as a module, not a package", () => {
    const module = {
      id: "m",
      name: "mod",
      type: "module",
      node_type: "composite",
      file_path: "src/pkg/my__init__.py",
      docstring: "",
      dependencies: [],
      subgraph_id: "core",
    };
    expect(errors(rpgDoc([module, leaf({ id: "a", file: "src/pkg/my__init__.py", parent_id: "m" })]))).toEqual([]);
  });

  it("rejects duplicate ids", () => {
    const [issue] = errors(rpgDoc([leaf({ id: "a" }), leaf({ id: "a", name: "other" })]));
    expect(issue).toMatchObject({ code: "RPG_DUPLICATE_ID", at: { nodeId: "a", field: "id" } });
  });

  it("rejects dangling references in dependencies, edges and parent_id", () => {
    const doc = rpgDoc(
      [leaf({ id: "a", deps: ["ghost"] }), leaf({ id: "b", parent_id: "nobody" })],
      [{ source: "b", target: "phantom", type: "uses" }],
    );
    expect(errors(doc).map((i) => [i.code, i.at.nodeId, i.at.field])).toEqual([
      ["RPG_DANGLING_REFERENCE", "a", "dependencies[0]"],
      ["RPG_DANGLING_REFERENCE", "b", "parent_id"],
      ["RPG_DANGLING_REFERENCE", "b", "edges[0].target"],
    ]);
  });

  it("rejects a subgraph_id missing from the subgraphs list, and a subgraph listed twice", () => {
    const doc = rpgDoc([leaf({ id: "a", subgraph: "core" }), leaf({ id: "b", subgraph: "extra" })], [], {
      subgraphs: [
        { id: "core", name: "Core" },
        { id: "core", name: "Core again" },
      ],
    });
    expect(codes(doc)).toEqual(["RPG_DUPLICATE_SUBGRAPH", "RPG_UNKNOWN_SUBGRAPH"]);
  });

  it("rejects two subgraph ids that would share a branch name", () => {
    const doc = rpgDoc([leaf({ id: "a", subgraph: "data io" }), leaf({ id: "b", subgraph: "data-io", file: "src/pkg/other.py" })]);
    const loaded = parseRpgText(text(doc), "rpg.json");
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.issues.map((i) => [i.code, i.at.nodeId, i.message])).toEqual([
      ["RPG_SUBGRAPH_BRANCH_CLASH", "b", 'subgraphs "data io" and "data-io" would share the branch name "data-io"; rename one'],
    ]);
  });

  it("names every node of a cycle in order", () => {
    const doc = rpgDoc([
      leaf({ id: "c", deps: ["a"] }),
      leaf({ id: "a", deps: ["b"] }),
      leaf({ id: "b", deps: ["c"] }),
      leaf({ id: "d", deps: ["a"] }),
    ]);
    const [issue] = errors(doc);
    expect(issue).toMatchObject({ code: "RPG_CYCLE", at: { nodeId: "a", field: "dependencies" } });
    expect(issue!.message).toContain("a → b → c → a");
    expect(issue!.message).not.toMatch(/→ d\b/);
  });

  it("finds cycles made of edges, whichever way the edge type points", () => {
    const doc = rpgDoc(
      [leaf({ id: "p" }), leaf({ id: "q" })],
      [
        { source: "p", target: "q", type: "function_call" },
        { source: "p", target: "q", type: "data_flow" },
      ],
    );
    expect(errors(doc)[0]!.message).toContain("p → q → p");
  });

  it("reports a node that depends on itself", () => {
    expect(errors(rpgDoc([leaf({ id: "a", deps: ["a"] })]))[0]!.message).toContain("a → a");
  });

  it("names only the cycle in a 10,000-node graph with one loop", () => {
    const nodes = chain(10_000);
    (nodes[0] as { dependencies: string[] }).dependencies = ["n10000"];
    const found = errors(rpgDoc(nodes));
    expect(found).toHaveLength(1);
    expect(found[0]!.code).toBe("RPG_CYCLE");
    const small = rpgDoc([
      ...chain(10_000),
      leaf({ id: "x", deps: ["y"] }),
      leaf({ id: "y", deps: ["z"] }),
      leaf({ id: "z", deps: ["x", "n5000"] }),
    ]);
    const [cycle] = errors(small);
    expect(cycle!.message).toBe("dependency cycle: x → y → z → x (each depends on the next)");
  });

  it.each([
    ["/src/pkg/a.py", "RPG_PATH_ABSOLUTE"],
    ["C:/pkg/a.py", "RPG_PATH_ABSOLUTE"],
    ["src/../../etc/a.py", "RPG_PATH_TRAVERSAL"],
    ["tests/test_a.py", "RPG_PATH_OUTSIDE_PACKAGE"],
    ["docs/a.py", "RPG_PATH_OUTSIDE_PACKAGE"],
    ["Tests/test_a.py", "RPG_PATH_OUTSIDE_PACKAGE"],
    ["src/.GIT/hooks.py", "RPG_PATH_OUTSIDE_PACKAGE"],
    ["setup.py", "RPG_PATH_OUTSIDE_PACKAGE"],
    [".github/workflows/evil.py", "RPG_PATH_GITHUB"],
    ["src/.github/a.py", "RPG_PATH_GITHUB"],
    ["src/pkg/a.txt", "RPG_PATH_NOT_PYTHON"],
    ["src\\pkg\\a.py", "RPG_PATH_INVALID"],
    ["src//pkg/a.py", "RPG_PATH_INVALID"],
  ])("rejects the file_path %s with %s", (path, code) => {
    const [issue] = errors(rpgDoc([leaf({ id: "a", file: path })]));
    expect(issue).toMatchObject({ code, at: { nodeId: "a", field: "file_path" } });
  });

  it("accepts ./ prefixes and nested packages", () => {
    expect(errors(rpgDoc([leaf({ id: "a", file: "./src/pkg/sub/a.py" }), leaf({ id: "b", file: "pkg/b.py" })]))).toEqual([]);
  });

  it("rejects a leaf without a docstring", () => {
    expect(errors(rpgDoc([leaf({ id: "a", docstring: "  \n" })]))[0]).toMatchObject({
      code: "RPG_MISSING_DOCSTRING",
      at: { nodeId: "a", field: "docstring" },
    });
  });

  it("rejects two leaves of the same name in the same file", () => {
    expect(codes(rpgDoc([leaf({ id: "a", name: "f" }), leaf({ id: "b", name: "f" })]))).toEqual(["RPG_DUPLICATE_SYMBOL"]);
  });

  it("takes a method's name in its class: two classes may each have __init__, and a method a function's name", () => {
    const cls = (id: string) => leaf({ id, name: id, type: "class" });
    const method = (id: string, name: string, parent: string) => leaf({ id, name, type: "method", parent_id: parent, deps: [parent] });
    const nodes = [
      cls("A"),
      cls("B"),
      method("A.init", "__init__", "A"),
      method("B.init", "__init__", "B"),
      leaf({ id: "f", name: "size" }),
    ];
    expect(codes(rpgDoc([...nodes, method("A.size", "size", "A")]))).toEqual([]);
    expect(codes(rpgDoc([...nodes, method("A.init2", "__init__", "A")]))).toEqual(["RPG_DUPLICATE_SYMBOL"]);
    // A method's parent must be a class: a function cannot hold one.
    expect(codes(rpgDoc([leaf({ id: "g", name: "g" }), method("g.m", "m", "g")]))).toEqual(["RPG_PARENT_NOT_COMPOSITE"]);
  });

  describe("composite and leaf nodes", () => {
    const module = composite({ id: "m" });
    const pkg = composite({ id: "p", name: "pkg", type: "package" });

    it("accepts leaves inside a module and modules inside a package", () => {
      expect(errors(rpgDoc([pkg, { ...module, parent_id: "p" }, leaf({ id: "a", parent_id: "m" })]))).toEqual([]);
    });

    it("rejects a parent that is a leaf", () => {
      expect(errors(rpgDoc([leaf({ id: "a" }), leaf({ id: "b", name: "g", parent_id: "a" })]))[0]).toMatchObject({
        code: "RPG_PARENT_NOT_COMPOSITE",
        at: { nodeId: "b", field: "parent_id" },
      });
    });

    it("rejects a child whose file is outside its parent", () => {
      expect(codes(rpgDoc([module, leaf({ id: "a", file: "src/pkg/other.py", parent_id: "m" })]))).toEqual(["RPG_PARENT_PATH_MISMATCH"]);
      expect(codes(rpgDoc([pkg, leaf({ id: "a", file: "src/pkgx/a.py", parent_id: "p" })]))).toEqual(["RPG_PARENT_PATH_MISMATCH"]);
    });

    it("rejects a composite typed as a function and a leaf typed as a module", () => {
      expect(codes(rpgDoc([{ ...module, type: "function" }, leaf({ id: "a", type: "module" })]))).toEqual([
        "RPG_COMPOSITE_LEAF_MIXUP",
        "RPG_COMPOSITE_LEAF_MIXUP",
      ]);
    });

    it("reports a composite that depends on its own child as a cycle", () => {
      expect(codes(rpgDoc([{ ...module, dependencies: ["a"] }, leaf({ id: "a", parent_id: "m" })]))).toEqual(["RPG_CYCLE"]);
    });
  });

  describe("inherits edges", () => {
    const base = leaf({ id: "shapes.Shape", name: "Shape", type: "class" });
    const circle = leaf({ id: "shapes.Circle", name: "Circle", type: "class" });
    const area = leaf({ id: "shapes.area", name: "area" });
    const inherits = (source: string, target: string) => ({ source, target, type: "inherits" });
    const located = (doc: unknown) => errors(doc).map((i) => [i.code, i.at.nodeId, i.at.field, i.message]);

    it("accepts a class inheriting from a class", () => {
      expect(errors(rpgDoc([base, circle], [inherits("shapes.Circle", "shapes.Shape")]))).toEqual([]);
    });

    it("rejects a class inheriting from a function, naming the edge, the wrong end and its type", () => {
      const doc = rpgDoc([base, circle, area], [inherits("shapes.Circle", "shapes.Shape"), inherits("shapes.Circle", "shapes.area")]);
      expect(located(doc)).toEqual([
        [
          "RPG_INHERITS_NOT_CLASS",
          "shapes.Circle",
          "edges[1].target",
          'the target "shapes.area" is a function, so "shapes.Circle" cannot inherit from it; both ends of an inherits edge must be classes',
        ],
      ]);
      expect(errors(doc)[0]!.pointer).toEqual(["edges", 1, "target"]);
    });

    it("rejects a function inheriting from a class", () => {
      expect(located(rpgDoc([base, area], [inherits("shapes.area", "shapes.Shape")]))).toEqual([
        [
          "RPG_INHERITS_NOT_CLASS",
          "shapes.area",
          "edges[0].source",
          'the source "shapes.area" is a function, so it cannot inherit from "shapes.Shape"; both ends of an inherits edge must be classes',
        ],
      ]);
    });

    it("reports each wrong end, composites and unknown types included", () => {
      const module = composite({ id: "shapes", name: "shapes", file: "src/pkg/core.py" });
      const odd = leaf({ id: "shapes.odd", name: "odd", type: "enum" });
      const found = errors(rpgDoc([module, odd], [inherits("shapes.odd", "shapes")]));
      expect(found.map((i) => [i.code, i.at.field])).toEqual([
        ["RPG_INHERITS_NOT_CLASS", "edges[0].source"],
        ["RPG_INHERITS_NOT_CLASS", "edges[0].target"],
      ]);
      expect(found[0]!.message).toContain('the source "shapes.odd" is a node of type "enum"');
      expect(found[1]!.message).toContain('the target "shapes" is a module');
    });

    it("reports a dangling end once, and still checks the other end", () => {
      expect(errors(rpgDoc([area], [inherits("shapes.area", "shapes.Ghost")])).map((i) => [i.code, i.at.field])).toEqual([
        ["RPG_DANGLING_REFERENCE", "edges[0].target"],
        ["RPG_INHERITS_NOT_CLASS", "edges[0].source"],
      ]);
    });

    it("leaves other edge types between functions and classes alone", () => {
      const doc = rpgDoc(
        [base, area],
        [
          { source: "shapes.area", target: "shapes.Shape", type: "uses" },
          { source: "shapes.area", target: "shapes.Shape", type: "function_call" },
        ],
      );
      expect(errors(doc)).toEqual([]);
    });
  });

  describe("Python names", () => {
    const located = (doc: unknown) => errors(doc).map((i) => [i.code, i.at.nodeId, i.at.field]);

    it.each(["calc-mean", "2fast", "has space", "dotted.name", "café", "lambda", "class", "None", "True", "async", "await", "nonlocal"])(
      "rejects the leaf name %s",
      (name) => {
        expect(located(rpgDoc([leaf({ id: "a", name })]))).toEqual([["RPG_NAME_NOT_IDENTIFIER", "a", "name"]]);
      },
    );

    it.each(["class_", "match", "case", "type", "_", "_private", "__init__", "MAX_SIZE", "Parser2", "print"])(
      "accepts the leaf name %s",
      (name) => {
        expect(errors(rpgDoc([leaf({ id: "a", name })]))).toEqual([]);
      },
    );

    it("says why a name is refused, with the line of the name", () => {
      const doc = rpgDoc([leaf({ id: "a", name: "yield" }), leaf({ id: "b", name: "my-func" })]);
      const [keyword, invalid] = errors(doc);
      expect(keyword!.message).toBe('"yield" is a Python keyword and cannot name a function or class; e.g. "yield_"');
      expect(invalid!.message).toMatch(/^"my-func" is not a Python identifier \(ASCII letters, digits and _, not starting with a digit\)/);
      const lines = text(doc).split("\n");
      expect(lines[keyword!.at.line! - 1]).toContain('"name": "yield"');
      expect(lines[invalid!.at.line! - 1]).toContain('"name": "my-func"');
    });

    it("applies the same rule to the names of modules and packages", () => {
      const doc = rpgDoc([
        composite({ id: "p", name: "my-pkg", type: "package", file: "src/pkg" }),
        composite({ id: "m", name: "import" }),
        composite({ id: "ok", name: "type", file: "src/pkg/other.py" }),
      ]);
      expect(located(doc)).toEqual([
        ["RPG_NAME_NOT_IDENTIFIER", "p", "name"],
        ["RPG_NAME_NOT_IDENTIFIER", "m", "name"],
      ]);
      expect(errors(doc)[1]!.message).toContain("cannot name a module or package");
    });

    it.each([
      ["src/my-pkg/core.py", "my-pkg"],
      ["src/pkg/2d.py", "2d"],
      ["src/class/core.py", "class"],
      ["src/pkg/my.module.py", "my.module"],
      ["src/pkg/from.py", "from"],
      ["./src/pkg/sub-dir/a.py", "sub-dir"],
      ["my-tools/pkg/core.py", "my-tools"],
      ["lib/def/core.py", "def"],
    ])("rejects the file_path %s, naming %s", (path, segment) => {
      const found = errors(rpgDoc([leaf({ id: "a", file: path })]));
      expect(found.map((i) => [i.code, i.at.nodeId, i.at.field])).toEqual([["RPG_NAME_NOT_IDENTIFIER", "a", "file_path"]]);
      expect(found[0]!.message).toBe(
        `${JSON.stringify(segment)} in ${path} ${["class", "from", "def"].includes(segment) ? "is a Python keyword" : "is not a Python identifier"}, so the module cannot be imported`,
      );
    });

    it.each([
      "src/pkg/__init__.py",
      "src/pkg/match.py",
      "src/_internal/type.py",
      "./src/pkg/core.py",
      "pkg/case/x.py",
      "src/pkg/v2/core.py",
    ])("accepts the file_path %s", (path) => {
      expect(errors(rpgDoc([leaf({ id: "a", file: path })]))).toEqual([]);
    });

    it("names each bad segment of a path once, and says a package cannot be imported", () => {
      const found = errors(
        rpgDoc([
          leaf({ id: "a", file: "src/my-pkg/my-pkg/2d.py" }),
          composite({ id: "p", name: "pkg", type: "package", file: "src/my-pkg/" }),
        ]),
      );
      expect(found.map((i) => [i.at.nodeId, i.message])).toEqual([
        ["a", '"my-pkg" in src/my-pkg/my-pkg/2d.py is not a Python identifier, so the module cannot be imported'],
        ["a", '"2d" in src/my-pkg/my-pkg/2d.py is not a Python identifier, so the module cannot be imported'],
        ["p", '"my-pkg" in src/my-pkg/ is not a Python identifier, so the package cannot be imported'],
      ]);
    });

    it("does not check the import name of a path that is already rejected", () => {
      expect(codes(rpgDoc([leaf({ id: "a", file: "src/my-pkg/a.txt" }), leaf({ id: "b", file: "tests/my-pkg/b.py" })]))).toEqual([
        "RPG_PATH_NOT_PYTHON",
        "RPG_PATH_OUTSIDE_PACKAGE",
      ]);
    });

    it("is reported together with the other problems of the graph", () => {
      const doc = rpgDoc([leaf({ id: "a", name: "for", docstring: "", deps: ["ghost"] }), leaf({ id: "b", file: "src/in/b.py" })]);
      expect(codes(doc).sort()).toEqual([
        "RPG_DANGLING_REFERENCE",
        "RPG_MISSING_DOCSTRING",
        "RPG_NAME_NOT_IDENTIFIER",
        "RPG_NAME_NOT_IDENTIFIER",
      ]);
    });
  });

  describe("module and package clashes", () => {
    const clashes = (doc: unknown) =>
      errors(doc)
        .filter((i) => i.code === "RPG_MODULE_PACKAGE_CLASH")
        .map((i) => [i.at.nodeId, i.at.field]);

    it("rejects a module and a package of the same name, on the package side, naming both paths", () => {
      const doc = rpgDoc([leaf({ id: "a", file: "src/pkg/util.py" }), leaf({ id: "b", file: "src/pkg/util/helpers.py" })]);
      const found = errors(doc);
      expect(found.map((i) => [i.code, i.at.nodeId, i.at.field])).toEqual([["RPG_MODULE_PACKAGE_CLASH", "b", "file_path"]]);
      expect(found[0]!.message).toBe(
        'src/pkg/util/helpers.py makes src/pkg/util/ a package, but node "a" has the module src/pkg/util.py: both would be imported as pkg.util',
      );
      expect(text(doc).split("\n")[found[0]!.at.line! - 1]).toContain('"file_path": "src/pkg/util/helpers.py"');
    });

    it("finds the clash whichever node comes first, and for a package that is only a parent directory", () => {
      expect(clashes(rpgDoc([leaf({ id: "b", file: "src/pkg/util/helpers.py" }), leaf({ id: "a", file: "src/pkg/util.py" })]))).toEqual([
        ["b", "file_path"],
      ]);
      const deep = errors(rpgDoc([leaf({ id: "a", file: "src/pkg.py" }), leaf({ id: "b", file: "./src/pkg/sub/deep/x.py" })]));
      expect(deep.map((i) => [i.code, i.at.nodeId])).toEqual([["RPG_MODULE_PACKAGE_CLASH", "b"]]);
      expect(deep[0]!.message).toContain("both would be imported as pkg");
    });

    it("counts package and module composites, by directory or by __init__.py", () => {
      expect(
        clashes(
          rpgDoc([
            composite({ id: "u", name: "util", type: "package", file: "src/pkg/util" }),
            composite({ id: "m", name: "util", file: "src/pkg/util.py" }),
          ]),
        ),
      ).toEqual([["u", "file_path"]]);
      expect(
        clashes(
          rpgDoc([
            leaf({ id: "a", file: "src/pkg/util.py" }),
            composite({ id: "u", name: "util", type: "package", file: "src/pkg/util/__init__.py" }),
          ]),
        ),
      ).toEqual([["u", "file_path"]]);
      expect(
        clashes(
          rpgDoc([
            leaf({ id: "a", file: "src/pkg/util.py" }),
            composite({ id: "u", name: "util", type: "package", file: "src/pkg/util/" }),
          ]),
        ),
      ).toEqual([["u", "file_path"]]);
    });

    it("reports one clash per module and package, on the package composite and naming the module composite when there are ones", () => {
      const doc = rpgDoc([
        leaf({ id: "a1", file: "src/pkg/util.py" }),
        leaf({ id: "b1", file: "src/pkg/util/x.py" }),
        leaf({ id: "b2", file: "src/pkg/util/y.py" }),
        composite({ id: "util", name: "util", file: "src/pkg/util.py" }),
        composite({ id: "utilpkg", name: "util", type: "package", file: "src/pkg/util" }),
        leaf({ id: "a2", file: "src/pkg/util.py" }),
        leaf({ id: "b3", file: "src/pkg/util/x.py" }),
      ]);
      const found = errors(doc);
      expect(found.map((i) => [i.code, i.at.nodeId])).toEqual([["RPG_MODULE_PACKAGE_CLASH", "utilpkg"]]);
      expect(found[0]!.message).toContain('node "util" has the module src/pkg/util.py');
    });

    it("applies to paths outside src/ as well", () => {
      expect(clashes(rpgDoc([leaf({ id: "a", file: "pkg/util.py" }), leaf({ id: "b", file: "pkg/util/x.py" })]))).toEqual([
        ["b", "file_path"],
      ]);
    });

    it("accepts modules and packages whose names only look alike", () => {
      const doc = rpgDoc([
        leaf({ id: "a", file: "src/pkg/util.py" }),
        leaf({ id: "b", file: "src/pkg/utils/x.py" }),
        leaf({ id: "c", file: "src/pkg/util_/x.py" }),
        leaf({ id: "d", file: "src/other/util/x.py" }),
        leaf({ id: "e", file: "src/pkg/__init__.py" }),
        leaf({ id: "f", file: "src/pkg/sub/util.py" }),
      ]);
      expect(errors(doc)).toEqual([]);
    });

    it("finds the one clash among 10,000 nodes in as many directories", () => {
      const nodes = Array.from({ length: 10_000 }, (_, i) => leaf({ id: `n${i}`, file: `src/pkg/d${i}/m${i}.py` }));
      nodes.push(leaf({ id: "clash", file: "src/pkg/d5000.py" }));
      const found = errors(rpgDoc(nodes));
      expect(found.map((i) => [i.code, i.at.nodeId])).toEqual([["RPG_MODULE_PACKAGE_CLASH", "n5000"]]);
      expect(found[0]!.message).toContain('node "clash" has the module src/pkg/d5000.py');
    });
  });

  it("reports every problem at once", () => {
    const doc = rpgDoc(
      [leaf({ id: "a", file: "/abs.py", deps: ["ghost"] }), leaf({ id: "a", name: "g" }), leaf({ id: "c", docstring: "" })],
      [],
    );
    expect(codes(doc).sort()).toEqual(["RPG_DANGLING_REFERENCE", "RPG_DUPLICATE_ID", "RPG_MISSING_DOCSTRING", "RPG_PATH_ABSOLUTE"]);
  });

  it("reports shape problems of several nodes at once", () => {
    const doc = rpgDoc([{ id: "a" }, { ...leaf({ id: "b" }), node_type: "x" }]);
    const found = errors(doc);
    expect(new Set(found.map((i) => i.at.nodeId))).toEqual(new Set(["a", "b"]));
    expect(found.filter((i) => i.at.nodeId === "a").map((i) => i.at.field)).toEqual([
      "name",
      "type",
      "node_type",
      "file_path",
      "docstring",
      "subgraph_id",
    ]);
  });

  it("warns when subgraphs depend on each other in a circle", () => {
    const loaded = parseRpgText(
      text(
        rpgDoc([
          leaf({ id: "a", subgraph: "x" }),
          leaf({ id: "b", subgraph: "y", deps: ["a"] }),
          leaf({ id: "c", subgraph: "x", deps: ["b"] }),
        ]),
      ),
      "rpg.json",
    );
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect(loaded.warnings.map((w) => w.code)).toEqual(["RPG_SUBGRAPH_CYCLE"]);
  });
});
