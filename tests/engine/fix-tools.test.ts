import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIX_TOOL_SPECS } from "../../src/engine/fix-tools.js";
import type { ReceivedRequest } from "../helpers/fake-openai-server.js";
import {
  callTools,
  generateWith,
  labLeaf,
  oneTest,
  startScriptedModel,
  type ScriptedModel,
  type Scripts,
} from "../helpers/scripted-model.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { unanimous } from "../helpers/votes.js";

/**
 * Decision 0030: with --fix-tools, a fix request offers the debugger's read-only tools as model tool calls. `twice`
 * calls `root`; its first implementation doubles wrongly; the fix looks around with tools, then answers.
 */
const tempDir = useTempDirs();
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

const NODES = [
  labLeaf("root", "root", [], "Integer square root of x."),
  labLeaf("twice", "twice", ["root"], "Twice the integer square root of x."),
];
const EDGES = [{ source: "twice", target: "root", type: "function_call" }];
const RIGHT = { imports: ["from lab.root import root"], code: "def twice(x):\n    return root(x) * 2\n", explanation: "two, not three" };

function scripts(fix: unknown[]): Scripts {
  return {
    root: {
      tests: [oneTest("root", "assert root(9) == 3")],
      implementation: [{ imports: ["import math"], code: "def root(x):\n    return int(math.sqrt(x))\n", notes: "" }],
    },
    twice: {
      tests: [oneTest("twice", "assert twice(9) == 6")],
      implementation: [{ imports: ["from lab.root import root"], code: "def twice(x):\n    return root(x) * 3\n", notes: "" }],
      diagnosis: unanimous("implementation_bug", "the factor is wrong"),
      fix,
    },
  };
}

type Message = { role: string; content: string | null; tool_call_id?: string };
const messagesOf = (request: ReceivedRequest): Message[] => request.body.messages as Message[];
const toolAnswers = (request: ReceivedRequest): Message[] => messagesOf(request).filter((m) => m.role === "tool");

async function run(fix: unknown[], options: { refuseTools?: boolean } = {}) {
  const model = await startScriptedModel(scripts(fix), options);
  models.push(model);
  const out = tempDir();
  const result = await generateWith(model, NODES, out, { fixTools: true, integrationTests: false }, EDGES);
  return { model, out, result };
}

describe("the fix step's tools (decision 0030)", () => {
  it("offers the five read-only tools, answers each call, and the fix that follows passes", async () => {
    const { model, out, result } = await run([
      callTools(
        { name: "find_symbol", arguments: { name: "root" } },
        { name: "view_code", arguments: { node_id: "root" } },
        { name: "find_referencing_symbols", arguments: { name: "root", file: "src/lab/root.py" } },
        { name: "search_rpg", arguments: { query: "square root" } },
        { name: "explore_dependencies", arguments: { node_id: "twice" } },
      ),
      RIGHT,
    ]);
    expect(result.checkpoint.nodes["twice"]).toMatchObject({ status: "passed", retry_count: 1 });
    const [asked, answered] = model.requestsOf("twice", "fix");
    expect((asked!.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(FIX_TOOL_SPECS.map((t) => t.name));
    // The prompt still carries the context the engine gathered: the tools are for more.
    expect(messagesOf(asked!).at(-1)!.content).toContain("<localization>");
    const answers = toolAnswers(answered!).map((m) => m.content ?? "");
    expect(answers).toHaveLength(5);
    expect(answers[0]).toMatch(/^src\/lab\/root\.py:\d+ function root\n/);
    expect(answers[1]).toContain("| def root(x):");
    expect(answers[2]).toMatch(/src\/lab\/twice\.py:\d+ (call|import)/);
    expect(answers[3]).toContain("root");
    expect(answers[4]).toMatch(/depends on \(1\)/);
    // The model's own queries are in the fix's log, after what the engine gathered.
    const runs = join(out, ".rpg-forge", "runs", result.runId, "twice");
    const log = readdirSync(runs).find((name) => name.includes("tool-calls-1"))!;
    const queries = JSON.parse(readFileSync(join(runs, log, "queries.json"), "utf8")) as { tool: string }[];
    expect(queries.map((q) => q.tool)).toEqual([
      "find_symbol",
      "view_code",
      "find_referencing_symbols",
      "search_rpg",
      "explore_dependencies",
    ]);
  }, 120_000);

  it("refuses a path out of the package, a tool it does not have and arguments that are not its own, and goes on", async () => {
    const { model, result } = await run([
      callTools(
        { name: "view_code", arguments: { file: "../../../etc/passwd" } },
        { name: "view_code", arguments: { file: "/etc/passwd" } },
        { name: "write_file", arguments: { path: "src/lab/twice.py", content: "x" } },
        { name: "search_rpg", arguments: { query: "root", limit: 999 } },
        { name: "find_symbol", arguments: "{not json" },
      ),
      RIGHT,
    ]);
    expect(result.checkpoint.nodes["twice"]).toMatchObject({ status: "passed" });
    const answers = toolAnswers(model.requestsOf("twice", "fix")[1]!).map((m) => m.content ?? "");
    expect(answers[0]).toMatch(/^refused: view_code's arguments: file: a path inside the package/);
    expect(answers[1]).toMatch(/^refused: view_code's arguments: file: a path inside the package/);
    expect(answers[2]).toMatch(/^no tool named "write_file"/);
    expect(answers[3]).toMatch(/^refused: search_rpg's arguments/);
    expect(answers[4]).toBe("refused: the arguments of find_symbol are not JSON");
    for (const answer of answers) expect(answer).not.toContain("root:x:0:0");
  }, 120_000);

  it("tells the model when the iteration's 20 queries are spent, and the fix goes on", async () => {
    const searches = Array.from({ length: 20 }, (_, i) => ({ name: "search_rpg", arguments: { query: `root ${i}` } }));
    const { model, result } = await run([callTools(...searches), RIGHT]);
    expect(result.checkpoint.nodes["twice"]).toMatchObject({ status: "passed" });
    const answers = toolAnswers(model.requestsOf("twice", "fix")[1]!).map((m) => m.content ?? "");
    // The engine's own gathering asked some of the 20 first.
    expect(answers.filter((a) => a.startsWith("refused: this fix has used all 20 of its queries")).length).toBeGreaterThan(0);
    expect(answers[0]).not.toMatch(/^refused/);
  }, 120_000);

  it("asks an endpoint that takes no tools the same prompt without them, the context inlined", async () => {
    const { model, result } = await run([RIGHT], { refuseTools: true });
    expect(result.checkpoint.nodes["twice"]).toMatchObject({ status: "passed", retry_count: 1 });
    const fixes = model.requests.filter(
      (r) => r.body.response_format && (r.body.messages as Message[]).some((m) => m.content?.includes("<localization>")),
    );
    // One refused with tools, then one without.
    expect(fixes.map((r) => Array.isArray(r.body.tools))).toEqual([true, false]);
    expect(messagesOf(fixes[1]!).at(-1)!.content).toBe(messagesOf(fixes[0]!).at(-1)!.content);
  }, 120_000);
});
