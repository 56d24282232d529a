import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import type { Checkpoint } from "../../src/engine/checkpoint.js";
import { DependencyCheckStep } from "../../src/engine/dependency-check-step.js";
import type { RunEvent } from "../../src/engine/events.js";
import { PythonIndex } from "../../src/lsp/python-index.js";
import type { DependencyCheck } from "../../src/record/dependency-check.js";
import { startFakeOpenAi } from "../helpers/fake-openai-server.js";
import { generateWith, kindOf, labLeaf, oneTest } from "../helpers/scripted-model.js";

/** Issue 16: the run's dependency check on fake parts: what the language server is told, and when the check runs. */

const CHECK = { via: "ast", target: 0.8, planned: 1, confirmed: 1, share: 1, meetsTarget: true } as unknown as DependencyCheck;
// The step reads the checkpoint only through `settled`.
const CHECKPOINT = {} as Checkpoint;

function fakeStep() {
  const log: string[] = [];
  const state = { settled: false };
  // The check's answer, whenever the step asks for it.
  let finish: (check: DependencyCheck | undefined) => void = () => undefined;
  const answer = new Promise<DependencyCheck | undefined>((resolve) => (finish = resolve));
  const step = new DependencyCheckStep({
    settled: () => state.settled,
    filesOf: (id) => [`src/${id}.py`, `tests/test_${id}.py`],
    tell: async (paths) => void log.push(`tell ${paths.join(" ")}`),
    check: () => {
      log.push("check");
      return answer;
    },
  });
  return { step, log, state, finish: (check: DependencyCheck | undefined) => finish(check) };
}

describe("the run's dependency check", () => {
  it("tells the server each node's files once, as the node settles", async () => {
    const { step, log } = fakeStep();
    await step.tellNodes(["a"]);
    await step.tellNodes(["a"]);
    expect(log).toEqual(["tell src/a.py tests/test_a.py", "tell "]);
  });

  it("starts nothing before every node has settled, and has no result then", async () => {
    const { step, log } = fakeStep();
    step.startWhenSettled(CHECKPOINT);
    expect(await step.result(CHECKPOINT)).toBeUndefined();
    expect(log).toEqual([]);
  });

  it("starts once every node has settled: this run's nodes not told yet are told first, then the check runs, once", async () => {
    // c settled in an earlier run (a resume): the server read its files when it started.
    const { step, log, state, finish } = fakeStep();
    step.nodeSettled("a");
    await step.tellNodes(["a"]);
    step.nodeSettled("b");
    state.settled = true;
    // d's outcome is in, its line not yet out.
    step.startWhenSettled(CHECKPOINT, ["d"]);
    step.startWhenSettled(CHECKPOINT, ["d"]);
    await Promise.resolve();
    await Promise.resolve();
    // The integration tests run now; the check has started, whoever asks for its result later.
    expect(log).toEqual(["tell src/a.py tests/test_a.py", "tell src/b.py tests/test_b.py src/d.py tests/test_d.py", "check"]);
    finish(CHECK);
    await step.finished();
    expect(log).toHaveLength(3);
  });

  it("gives the check it started to the first who asks for it, and nothing to the next", async () => {
    const { step, log, state, finish } = fakeStep();
    state.settled = true;
    step.startWhenSettled(CHECKPOINT);
    const first = step.result(CHECKPOINT);
    finish(CHECK);
    expect(await first).toBe(CHECK);
    expect(await step.result(CHECKPOINT)).toBeUndefined();
    expect(log.filter((line) => line === "check")).toHaveLength(1);
  });

  it("starts the check when asked for its result, when nothing started it", async () => {
    const { step, log, state, finish } = fakeStep();
    step.nodeSettled("a");
    state.settled = true;
    const result = step.result(CHECKPOINT);
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(["tell src/a.py tests/test_a.py", "check"]);
    finish(undefined);
    expect(await result).toBeUndefined();
  });

  it("gives the run's end the check its end started when no node took it, and asks once more after one a node took", async () => {
    const resumed = fakeStep();
    resumed.state.settled = true;
    resumed.step.startWhenSettled(CHECKPOINT);
    resumed.finish(CHECK);
    expect(await resumed.step.atRunEnd()).toBe(CHECK);
    expect(resumed.log).toEqual(["tell ", "check"]);

    const failed = fakeStep();
    failed.state.settled = true;
    failed.finish(undefined);
    expect(await failed.step.result(CHECKPOINT)).toBeUndefined();
    await failed.step.atRunEnd();
    expect(failed.log.filter((line) => line === "check")).toHaveLength(2);
  });

  it("waits for a check that was started and never asked for, before the server stops", async () => {
    const { step, state, finish } = fakeStep();
    state.settled = true;
    step.startWhenSettled(CHECKPOINT);
    let done = false;
    const finished = step.finished().then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    finish(CHECK);
    await finished;
    expect(done).toBe(true);
  });
});

describe("a run's dependency check", () => {
  it("runs while the model writes the subgraph's integration tests, not after them", async ({ onTestFinished }) => {
    // Without a language server, the check's references come from Python's parser: calls of PythonIndex.references.
    const references = vi.spyOn(PythonIndex.prototype, "references");
    onTestFinished(() => references.mockRestore());
    let atSettle = -1;
    let atReply = -1;
    const model = await startFakeOpenAi(async (body) => {
      const kind = kindOf(body);
      const reply =
        kind === "tests"
          ? oneTest("parse", 'assert parse("2") == 2.0')
          : kind === "implementation"
            ? { imports: [], code: "def parse(x):\n    return float(x)\n", notes: "" }
            : { test_code: 'from lab.parse import parse\n\n\ndef test_flow():\n    assert parse("3") == 3.0\n', notes: "" };
      if (kind === "integration_tests") {
        // The check has until this reply to have asked for references: one file, at once when it works; the margin is for a loaded machine.
        for (let waited = 0; waited < 15_000 && references.mock.calls.length <= atSettle; waited += 20) await sleep(20);
        atReply = references.mock.calls.length;
      }
      return { content: JSON.stringify(reply), usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } };
    });
    const out = mkdtempSync(join(tmpdir(), "rpg-forge-dependency-check-"));
    onTestFinished(async () => {
      await model.close();
      rmSync(out, { recursive: true, force: true });
    });
    const checked: RunEvent[] = [];
    const result = await generateWith(model, [labLeaf("parse")], out, {
      onEvent: (event) => {
        // The node's line comes before its subgraph's integration tests are asked for.
        if (event.type === "node-finished") atSettle = references.mock.calls.length;
        if (event.type === "dependency-checked") checked.push(event);
      },
    });
    expect(result.checkpoint.nodes.parse?.status).toBe("passed");
    expect(result.checkpoint.integration?.lab?.status).toBe("validated");
    expect(atReply).toBeGreaterThan(atSettle);
    // Asked once, and recorded once, where it always was: before the last commit.
    expect(references.mock.calls.length).toBe(atReply);
    expect(checked).toHaveLength(1);
    expect(result.checkpoint.dependency_check).toBeDefined();
  }, 60_000);
});
