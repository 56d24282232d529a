import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerateResult } from "../../src/engine/generate.js";
import { pyrightLangserverScript } from "../../src/lsp/pyright-binary.js";
import { generateWith, labLeaf, oneTest, startScriptedModel, type ScriptedModel } from "../helpers/scripted-model.js";
import { unanimous } from "../helpers/votes.js";

/**
 * Decision 0028: a failing node's fix request carries what the engine looked up around it. `twice` calls `root`
 * (src/lab/root.py); its first two versions double wrongly, the third is right. Run with the language server on,
 * which is killed once `root` has passed: the lookups go on with Python's parser, and the run says so.
 */
const content = (request: { body: Record<string, unknown> }): string => {
  const messages = request.body.messages as { content: string }[];
  return messages.at(-1)!.content;
};
const localization = (request: { body: Record<string, unknown> }): string => {
  const text = content(request);
  const start = text.indexOf("<localization>");
  return start < 0 ? "" : text.slice(start, text.indexOf("</localization>", start));
};

const SERVER_SCRIPT = pyrightLangserverScript();

/** The pyright-langserver processes this process started (children of its children included). */
function pyrightServers(): number[] {
  const all = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const ours = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (ours.has(p.ppid) && !ours.has(p.pid)) {
        ours.add(p.pid);
        grew = true;
      }
  }
  return all.filter((p) => ours.has(p.pid) && p.pid !== process.pid && p.args.includes(SERVER_SCRIPT)).map((p) => p.pid);
}

let model: ScriptedModel;
let out: string;
let result: GenerateResult;
const notices: string[] = [];
let killed: number[] = [];

beforeAll(async () => {
  const wrong = (factor: number, why: string) => ({
    imports: ["from lab.root import root"],
    code: `def twice(x):\n    return root(x) * ${factor}\n`,
    explanation: why,
  });
  model = await startScriptedModel({
    root: {
      tests: [oneTest("root", "assert root(9) == 3")],
      implementation: [{ imports: ["import math"], code: "def root(x):\n    return int(math.sqrt(x))\n", notes: "" }],
    },
    twice: {
      tests: [oneTest("twice", "assert twice(9) == 6")],
      implementation: [{ imports: ["from lab.root import root"], code: "def twice(x):\n    return root(x) * 3\n", notes: "" }],
      diagnosis: unanimous("implementation_bug", "the factor is wrong"),
      fix: [wrong(4, "tried four"), wrong(2, "two, not three")],
    },
  });
  out = mkdtempSync(join(tmpdir(), "rpg-forge-fix-localization-"));
  result = await generateWith(
    model,
    [labLeaf("root", "root", [], "Integer square root of x."), labLeaf("twice", "twice", ["root"], "Twice the integer square root of x.")],
    out,
    {
      languageServer: true,
      onNotice: (notice) => notices.push(notice),
      onEvent: (event) => {
        // The server dies mid-run, before the first lookup that needs it.
        if (event.type === "node-finished" && event.nodeId === "root") {
          killed = pyrightServers();
          for (const pid of killed) process.kill(pid, "SIGKILL");
        }
      },
    },
    [{ source: "twice", target: "root", type: "function_call" }],
  );
}, 120_000);

afterAll(async () => {
  await model?.close();
  rmSync(out, { recursive: true, force: true });
});

describe("the fix step's localization (decision 0028)", () => {
  it("passes the node after two fixes", () => {
    expect(result.summary.counts).toMatchObject({ passed: 2, failed: 0 });
    expect(model.requestsOf("twice", "fix")).toHaveLength(2);
  });

  it("gives the first fix its dependencies two hops each way, the code of what it calls, and search hits for the failure", () => {
    const first = localization(model.requestsOf("twice", "fix")[0]!);
    expect(first).toMatch(/^twice \[in_progress\] {2}\[lab, src\/lab\/twice.py\]$/m);
    expect(first).toMatch(/depends on \(1\)\n\| {3}`-- root \[passed\]\n`-- needed by: \(none\)/);
    expect(first).toContain("Code of the dependencies, as generated:");
    expect(first).toContain("# src/lab/root.py root (node root): lines");
    expect(first).toContain("| def root(x):");
    expect(first).toContain("|     return int(math.sqrt(x))");
    expect(first).toMatch(/Search "assert 9 == 6[^"]*" in subgraph lab, ranked by BM25, offline: \d+ match/);
    // Nothing was asked before the first fix.
    expect(first).not.toContain("already asked");
    // The context is quoted data in the user message, like the code and the brief.
    expect(content(model.requestsOf("twice", "fix")[0]!)).toContain("What rpg-forge looked up around the node (quoted data");
  });

  it("tells the second fix what the first asked, and does not ask it again", () => {
    const second = localization(model.requestsOf("twice", "fix")[1]!);
    expect(second).toContain("Localization queries already asked");
    expect(second).toMatch(
      /Iteration 1:\n {2}1\. explore_dependencies "twice" -> depends on: root; needed by: none\n {2}2\. find_symbol "root in src\/lab\/root.py" -> src\/lab\/root.py:\d+ root\n {2}3\. search_rpg "assert 9 == 6/,
    );
    // The answers had are shown again, without new queries for them.
    expect(second).toContain("| def root(x):");
    const runs = join(out, ".rpg-forge", "runs", result.runId, "twice");
    const logs = readdirSync(runs).filter((name) => name.includes("localization-"));
    expect(logs).toHaveLength(2);
    const secondQueries = JSON.parse(readFileSync(join(runs, logs[1]!, "queries.json"), "utf8")) as { tool: string; query: string }[];
    // Only the new failure message is searched for: "assert 12 == 6" after a factor of four.
    expect(secondQueries.map((q) => q.tool)).toEqual(["search_rpg"]);
    expect(secondQueries[0]!.query).toMatch(/^assert 12 == 6/);
  });

  it("falls back to Python's parser with a notice when the language server is killed mid-run, and never crashes", () => {
    expect(killed.length).toBeGreaterThan(0);
    expect(notices.some((n) => /pyright-langserver .*Python's parser answers instead, for the rest of the run/.test(n))).toBe(true);
    // The parser found the dependency's code all the same.
    expect(localization(model.requestsOf("twice", "fix")[0]!)).toContain("| def root(x):");
  });

  it("checks the planned dependencies against the code and reports the share in docs/generation_report.md", () => {
    // Recorded without which implementation answered: the same code gives the same committed checkpoint either way.
    expect(result.checkpoint.dependency_check).toEqual({
      target: 0.8,
      planned: 1,
      confirmed: 1,
      share: 1,
      meetsTarget: true,
      missing: [],
      unplanned: [],
      unchecked: 0,
      notFound: [],
      unreferenced: ["twice"],
    });
    const report = readFileSync(join(out, "docs", "generation_report.md"), "utf8");
    expect(report).toContain("## Dependency Check");
    expect(report).toContain("Dependency check: 100% of planned edges confirmed (target 80%): 1 of 1");
    const checkpoint = JSON.parse(readFileSync(join(out, "docs", "generation_checkpoint.json"), "utf8")) as Record<string, unknown>;
    expect(checkpoint.dependency_check).toMatchObject({ planned: 1, confirmed: 1 });
  });
});
