import { join } from "node:path";
import { readFile } from "node:fs/promises";
import { findTestBlock, upsertTestBlock } from "../../src/assembly/test-blocks.js";
import { testFileLookup } from "../../src/assembly/layout.js";
import { castVotes, tallyVotes } from "../../src/engine/diagnosis-vote.js";
import { failureBrief } from "../../src/engine/failure-brief.js";
import { NodeModel } from "../../src/engine/node-model.js";
import { createTddSetup } from "../../src/engine/tdd-setup.js";
import type { ModelProvider } from "../../src/llm/provider.js";
import { createRequestKeys } from "../../src/llm/request-keys.js";
import { diagnosisPrompt } from "../../src/llm/requests/diagnosis.js";
import type { Plan } from "../../src/plan/plan.js";
import { runPythonScript } from "../../src/python-helpers/run-script.js";
import type { DiagnosisDecision } from "../../src/record/checkpoint.js";
import type { Vote } from "../../src/record/diagnosis.js";
import { normalizePath } from "../../src/rpg/paths.js";
import type { Rpg, RpgNode } from "../../src/rpg/schema.js";
import { symbolKindOf } from "../../src/rpg/symbol-kind.js";
import { runPytest, type PytestResult, type SandboxKind } from "../../src/sandbox/pytest.js";
import { ArtifactStore } from "../../src/workspace/artifacts.js";
import { generateMutants } from "../../src/workspace/mutants.js";
import { PackageFiles } from "../../src/workspace/package-files.js";
import { outlinePython } from "../../src/workspace/python-outline.js";
import { createWorkTree, layOver, removeWorkTree } from "../../src/workspace/work-tree.js";

/** A fault of known kind planted in a passed node, and what the model's votes made of it. */
export interface PlantedDiagnosis {
  nodeId: string;
  planted: "implementation_bug" | "test_issue";
  /** What the fault is, for people: the mutant's description, or the literal changed. */
  fault: string;
  decision: DiagnosisDecision;
  votes: Vote[];
}

export interface PlantOptions {
  rpg: Rpg;
  plan: Plan;
  /** A generated package (the quality run's output). */
  outDir: string;
  passed: ReadonlySet<string>;
  python: string;
  provider: ModelProvider;
  sandbox: SandboxKind;
  /** Passed function nodes to plant faults in, in plan order; two faults each. */
  nodes: number;
  votes: number;
}

/**
 * Diagnosis accuracy on planted faults (PRD epic 4.5): in each of the first `nodes` passed function nodes, an
 * implementation bug (the first mutant of its code that its tests kill) and a test issue (a literal its tests
 * compare against, changed, run against the correct code). Each failure is diagnosed as the debug loop would
 * (the same prompt, `votes` votes, the same tally), and the decision compared with the kind planted.
 */
export async function diagnosePlantedFaults(options: PlantOptions): Promise<PlantedDiagnosis[]> {
  const scratch = join(options.outDir, ".rpg-forge", "planted");
  const files = await PackageFiles.open(options.outDir);
  const setup = createTddSetup({
    rpg: options.rpg,
    plan: options.plan,
    provider: options.provider,
    keys: createRequestKeys(),
    files,
    artifacts: new ArtifactStore(options.outDir, "quality-bench"),
    python: options.python,
    runTests: () => Promise.reject(new Error("the planted faults run their own tests")),
    runMutants: () => Promise.reject(new Error("the planted faults run their own tests")),
  });
  const testFileOf = testFileLookup(options.rpg);
  const candidates = options.plan.order
    .map((id) => options.plan.nodes.get(id)!)
    .filter((node) => options.passed.has(node.id) && symbolKindOf(node) === "function")
    .slice(0, options.nodes);
  const results: PlantedDiagnosis[] = [];
  try {
    for (const node of candidates) {
      const module = normalizePath(node.file_path);
      const testFile = testFileOf(node.id);
      const code = await readFile(join(options.outDir, module), "utf8");
      const tests = await readFile(join(options.outDir, testFile), "utf8");
      const block = blockOf(tests, node.id);
      if (!block) continue;
      const ids = [...block.matchAll(/^(?:async\s+)?def (test\w*)/gm)].map((m) => `${testFile}::${m[1]}`);
      const run = async (changed: Map<string, string>): Promise<PytestResult> => {
        await createWorkTree(options.outDir, scratch);
        await layOver(scratch, changed);
        return runPytest({ cwd: scratch, targets: ids, sandbox: options.sandbox });
      };
      const diagnose = async (
        planted: PlantedDiagnosis["planted"],
        fault: string,
        testsCode: string,
        source: string,
        result: PytestResult,
      ) => {
        const prompt = diagnosisPrompt(
          setup.promptContext(node),
          testsCode,
          await symbolSource(options.python, source, node),
          failureBrief(result, [], scratch),
        );
        const votes = await castVotes(new NodeModel(setup, node.id, new AbortController().signal), prompt, options.votes);
        results.push({ nodeId: node.id, planted, fault, decision: tallyVotes(votes, options.votes).decision, votes });
      };

      for (const mutant of await generateMutants(options.python, code, { name: node.name })) {
        const result = await run(new Map([[module, mutant.source]]));
        if (!failsItsTests(result)) continue;
        await diagnose("implementation_bug", mutant.description, block, mutant.source, result);
        break;
      }
      const wrong = await plantTestFault(options.python, block);
      if (wrong) {
        const result = await run(new Map([[testFile, upsertTestBlock(tests, node.id, wrong.block)]]));
        if (failsItsTests(result)) await diagnose("test_issue", wrong.description, wrong.block, code, result);
      }
    }
  } finally {
    await removeWorkTree(scratch);
  }
  return results;
}

function failsItsTests(result: PytestResult): boolean {
  return result.exitCode === 1 && result.tests.some((t) => t.status === "failed");
}

/** The node's block of its test file, without the markers. */
function blockOf(tests: string, nodeId: string): string | undefined {
  const found = findTestBlock(tests, nodeId);
  if (!found) return undefined;
  // From the line after the opening marker to the line before the closing one.
  return `${tests
    .split("\n")
    .slice(found.start, found.end - 1)
    .join("\n")}\n`;
}

/** The node's symbol as the module holds it: what the debug loop quotes as the current code. */
async function symbolSource(python: string, source: string, node: RpgNode): Promise<string> {
  const outline = await outlinePython(python, source);
  const statement = outline.ok ? outline.statements.find((s) => s.name === node.name) : undefined;
  if (!statement) return source;
  return `${source
    .split("\n")
    .slice(statement.start - 1, statement.end)
    .join("\n")}\n`;
}

/**
 * A test issue, planted: the first literal an `assert x == <literal>` (or `== pytest.approx(<number>)`, or a list or
 * tuple holding one) compares against, changed (a number plus one, a string with "!" appended), spliced at its position so that nothing else
 * in the block moves.
 */
const PLANT_TEST_FAULT = String.raw`
import ast, json, sys
block = json.loads(sys.stdin.read())["block"]
lines = block.splitlines(keepends=True)
def literal(node):
    if isinstance(node, ast.Call) and node.args and getattr(node.func, "attr", "") == "approx":
        node = node.args[0]
    if isinstance(node, (ast.List, ast.Tuple)):
        return next((found for found in map(literal, node.elts) if found is not None), None)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, str):
        return node
    return None
def offset(line, col):
    return sum(len(l) for l in lines[: line - 1]) + len(lines[line - 1].encode()[:col].decode())
found = None
for node in ast.walk(ast.parse(block)):
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq):
        target = literal(node.test.comparators[0])
        if target is not None and (found is None or (target.lineno, target.col_offset) < (found.lineno, found.col_offset)):
            found = target
if found is None:
    print(json.dumps(None))
else:
    value = found.value
    new = repr(value + "!") if isinstance(value, str) else repr(value + 1)
    start, end = offset(found.lineno, found.col_offset), offset(found.end_lineno, found.end_col_offset)
    print(json.dumps({"block": block[:start] + new + block[end:], "description": f"line {found.lineno}: {block[start:end]} became {new}"}))
`;

async function plantTestFault(python: string, block: string): Promise<{ block: string; description: string } | undefined> {
  const reply = JSON.parse(await runPythonScript(python, PLANT_TEST_FAULT, JSON.stringify({ block }))) as {
    block: string;
    description: string;
  } | null;
  return reply ?? undefined;
}
