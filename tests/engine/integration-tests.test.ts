import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerateResult } from "../../src/engine/generate.js";
import { CHECKPOINT_PATH } from "../../src/engine/output-paths.js";
import { buildPlan } from "../../src/plan/plan.js";
import { subgraphEnds } from "../../src/plan/subgraph-ends.js";
import { prReportOf, runReportOf } from "../helpers/reports.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { rpgDoc, text } from "../helpers/rpg.js";
import { generateWith, labLeaf, oneTest, startScriptedModel, type ScriptedModel } from "../helpers/scripted-model.js";
import { packageSuiteIn } from "../helpers/package-suite.js";

/**
 * PRD epic 4.5's integration tests: the subgraph `lab` is a chain of five nodes, parse → scale →
 * shift → clip → label, each in its own module. Once all five pass, the model writes tests that run
 * the data from the entry (parse) to the exit (label); five of six cases pass (83%), so the subgraph
 * is validated and the five ship. The subgraph `shop` gets a reply that exits the interpreter, which the
 * review refuses, and then tests of which one case in three passes: not validated, and only that one ships.
 */
const passing = (name: string, code: string, assertion: string) => ({
  tests: [oneTest(name, assertion)],
  implementation: [{ imports: [], code, notes: "" }],
});
const shopLeaf = (name: string, deps: string[] = []) => ({ ...labLeaf(name, name, deps), subgraph_id: "shop" });

const LAB_TESTS = `import pytest
from lab.parse import parse
from lab.scale import scale
from lab.shift import shift
from lab.clip import clip
from lab.label import label


def test_flow_small():
    assert label(clip(shift(scale(parse("2"))))) == "value=5.0"


def test_flow_clipped():
    assert label(clip(shift(scale(parse("20"))))) == "value=10"


def test_flow_negative():
    assert label(clip(shift(scale(parse("-1"))))) == "value=-1.0"


@pytest.mark.parametrize("text", ["0", "1"])
def test_flow_cases(text):
    assert label(clip(shift(scale(parse(text))))).startswith("value=")


def test_flow_wrong():
    assert label(clip(shift(scale(parse("3"))))) == "value=6.0"
`;

const SHOP_TESTS = `from lab.price import price
from lab.total import total


def test_total_of_price():
    assert total(price(2)) == 6


def test_total_doubles():
    assert total(price(1)) == 100


def test_total_zero():
    assert total(price(0)) == 42
`;

let model: ScriptedModel;
let out: string;
let result: GenerateResult;
const nodes = [
  labLeaf("parse"),
  labLeaf("scale", "scale", ["parse"]),
  labLeaf("shift", "shift", ["scale"]),
  labLeaf("clip", "clip", ["shift"]),
  labLeaf("label", "label", ["clip"]),
  shopLeaf("price"),
  shopLeaf("total", ["price"]),
];

beforeAll(async () => {
  model = await startScriptedModel({
    parse: passing("parse", "def parse(x):\n    return float(x)\n", 'assert parse("2") == 2.0'),
    scale: passing("scale", "def scale(x):\n    return x * 2\n", "assert scale(3) == 6"),
    shift: passing("shift", "def shift(x):\n    return x + 1\n", "assert shift(3) == 4"),
    clip: passing("clip", "def clip(x):\n    return min(x, 10)\n", "assert clip(30) == 10"),
    label: passing("label", 'def label(x):\n    return f"value={x}"\n', 'assert label(1) == "value=1"'),
    price: passing("price", "def price(x):\n    return x * 3\n", "assert price(2) == 6"),
    total: passing("total", "def total(x):\n    return x\n", "assert total(6) == 6"),
    lab: { integration_tests: [{ test_code: LAB_TESTS, notes: "parse to label" }] },
    shop: {
      integration_tests: [
        // Gaming the reward: a test that ends the interpreter before pytest can report a failure.
        { test_code: "import os\nfrom lab.total import total\n\n\ndef test_total():\n    os._exit(0)\n", notes: "" },
        { test_code: SHOP_TESTS, notes: "price to total" },
      ],
    },
  });
  out = mkdtempSync(join(tmpdir(), "rpg-forge-integration-"));
  result = await generateWith(model, nodes, out, { mutants: 0 });
}, 180_000);

afterAll(async () => {
  await model?.close();
  rmSync(out, { recursive: true, force: true });
});

describe("a subgraph's structure", () => {
  it("has its entry (no dependency inside) and its exit (no dependent inside)", () => {
    const loaded = parseRpgText(text(rpgDoc(nodes)), "rpg.json");
    if (!loaded.ok) throw new Error("bad rpg");
    const plan = buildPlan(loaded.value);
    const ends = subgraphEnds(
      plan,
      plan.subgraphs.find((s) => s.id === "lab")!,
    );
    expect(ends.entries).toEqual(["parse"]);
    expect(ends.exits).toEqual(["label"]);
    expect(ends.edges).toContainEqual(["scale", "parse"]);
  });
});

describe("integration tests generated from a 5-node subgraph", () => {
  it("asks once the subgraph's leaves have passed, naming the entry and the exit", () => {
    const [request] = model.requestsOf("lab", "integration_tests");
    const prompt = JSON.stringify(request!.body.messages);
    expect(prompt).toContain('\\"entries\\": [\\n    \\"parse\\"\\n  ]');
    expect(prompt).toContain("each test starts at an entry node (parse)");
    expect(prompt).toContain("checks what an exit node (label) returns");
    // Interfaces, never bodies: the prompt holds the docstring, not the code.
    expect(prompt).not.toContain("return min(x, 10)");
  });

  it("validates the subgraph at 5 of 6 cases (83%) and ships the passing tests only", () => {
    expect(result.checkpoint.integration?.["lab"]).toMatchObject({
      status: "validated",
      entries: ["parse"],
      exits: ["label"],
      total: 6,
      passed: 5,
      shipped: 5,
      file: "tests/integration/test_lab.py",
      failing: [{ name: "tests/integration/test_lab.py::test_flow_wrong" }],
    });
    expect(result.checkpoint.integration?.["lab"]?.failing[0]!.message).toContain("value=7.0");
    const shipped = readFileSync(join(out, "tests/integration/test_lab.py"), "utf8");
    expect(shipped).toContain("def test_flow_small():");
    expect(shipped).toContain("def test_flow_cases(text):");
    expect(shipped).not.toContain("test_flow_wrong");
  });

  it("refuses tests that end the interpreter, tells the model why, and marks a subgraph under 80% not validated", () => {
    const second = JSON.stringify(model.requestsOf("shop", "integration_tests")[1]!.body.messages);
    expect(second).toContain("the review refused the tests:");
    expect(second).toContain("(process-exit)");
    expect(result.checkpoint.integration?.["shop"]).toMatchObject({ status: "not_validated", total: 3, passed: 1, shipped: 1 });
    expect(readFileSync(join(out, "tests/integration/test_shop.py"), "utf8")).toContain("def test_total_of_price():");
  });

  it("leaves a package whose whole suite passes, the integration tests in it", () => {
    const suite = packageSuiteIn("python3", out);
    expect(suite.code, suite.output).toBe(0);
    expect(suite.output).toMatch(/\b13 passed\b/);
  });

  it("commits each subgraph's integration tests with it", () => {
    const tags = execFileSync("git", ["tag", "--list"], { cwd: out, encoding: "utf8" }).trim().split("\n");
    const lab = tags.find((t) => t.endsWith("/lab"))!;
    const files = execFileSync("git", ["ls-tree", "-r", "--name-only", lab], { cwd: out, encoding: "utf8" });
    expect(files).toContain("tests/integration/test_lab.py");
    expect(files).not.toContain("tests/integration/test_shop.py");
    const checkpoint = JSON.parse(execFileSync("git", ["show", `${lab}:${CHECKPOINT_PATH}`], { cwd: out, encoding: "utf8" })) as {
      integration?: Record<string, unknown>;
    };
    expect(Object.keys(checkpoint.integration ?? {})).toEqual(["lab"]);
  });

  it("shows the results in the report and on the subgraph's pull request", async () => {
    const report = await runReportOf(out, result);
    expect(report).toContain("## Integration Tests");
    expect(report).toContain("| `lab` | `parse` → `label` | 5 of 6 (83%) passed, ✅ validated | 5 in `tests/integration/test_lab.py` |");
    expect(report).toContain("3 (33%) passed, ⚠️ not validated (under 80%)");
    const comment = prReportOf(result, "shop");
    expect(comment).toContain("#### Integration tests");
    expect(comment).toContain("From `price` to `total`: 1 of 3 (33%) passed, ⚠️ not validated (under 80%).");
    expect(comment).toContain("`tests/integration/test_shop.py::test_total_doubles`");
  });
});

describe("a resume that finds a complete subgraph without integration tests", () => {
  let resumeModel: ScriptedModel;
  let dir: string;

  beforeAll(async () => {
    resumeModel = await startScriptedModel({
      price: passing("price", "def price(x):\n    return x * 3\n", "assert price(2) == 6"),
      total: passing("total", "def total(x):\n    return x\n", "assert total(6) == 6"),
      shop: { integration_tests: [{ test_code: SHOP_TESTS, notes: "" }] },
    });
    dir = mkdtempSync(join(tmpdir(), "rpg-forge-integration-resume-"));
    await generateWith(resumeModel, [shopLeaf("price"), shopLeaf("total", ["price"])], dir, { mutants: 0, integrationTests: false });
  }, 120_000);

  afterAll(async () => {
    await resumeModel?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("tests it at the end of the resume, with no node to run, and a second resume asks nothing", async () => {
    expect(resumeModel.requestsOf("shop")).toEqual([]);
    const resumed = await generateWith(resumeModel, [shopLeaf("price"), shopLeaf("total", ["price"])], dir, { mutants: 0, mode: "resume" });
    expect(resumed.summary.counts.passed).toBe(2);
    expect(resumed.checkpoint.integration?.["shop"]).toMatchObject({ passed: 1, total: 3, shipped: 1 });
    expect(resumeModel.requestsOf("shop", "integration_tests")).toHaveLength(1);
    const onDisk = JSON.parse(readFileSync(join(dir, CHECKPOINT_PATH), "utf8")) as { integration?: Record<string, unknown> };
    expect(onDisk.integration?.["shop"]).toMatchObject({ shipped: 1 });

    await generateWith(resumeModel, [shopLeaf("price"), shopLeaf("total", ["price"])], dir, { mutants: 0, mode: "resume" });
    expect(resumeModel.requestsOf("shop", "integration_tests")).toHaveLength(1);
  }, 120_000);
});
