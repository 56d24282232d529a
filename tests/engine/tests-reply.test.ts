import { describe, expect, it } from "vitest";
import { upsertTestBlock } from "../../src/assembly/test-blocks.js";
import { judgeTestsReply, type TestsReply } from "../../src/engine/tests-reply.js";
import { helperTraffic } from "../../src/python-helpers/worker.js";
import type { RpgNode } from "../../src/rpg/schema.js";
import { findPython } from "../../src/sandbox/python.js";

const python = await findPython();

const MEDIAN = {
  id: "median",
  name: "median",
  type: "function",
  node_type: "leaf",
  file_path: "src/statkit/stats.py",
  docstring: "The middle value.",
  dependencies: [],
  subgraph_id: "stats",
} as unknown as RpgNode;

// The file as the node finds it: the block of a node that passed before it in the module.
const CURRENT = upsertTestBlock("", "mean", "from statkit.stats import mean\n\n\ndef test_mean_of_two():\n    assert mean([1, 3]) == 2\n");
const TESTS = "from statkit.stats import median\n\n\ndef test_median_of_three():\n    assert median([3, 1, 2]) == 2\n";

const reply = (code: string): TestsReply => ({
  python,
  node: MEDIAN,
  testFile: "tests/test_stats.py",
  current: CURRENT,
  code,
  registrars: [],
});

/** The verdict, and the helpers' traffic it took: rounds of calls (a round waits for no other call) and calls. */
async function judged(code: string): Promise<{ verdict: Awaited<ReturnType<typeof judgeTestsReply>>; rounds: number; calls: number }> {
  const before = helperTraffic();
  const verdict = await judgeTestsReply(reply(code));
  const after = helperTraffic();
  return { verdict, rounds: after.rounds - before.rounds, calls: after.requests - before.requests };
}

describe("a tests reply judged before it is placed", () => {
  it("sends the review and both outlines to the helpers at once: one round, each call waiting for none of the others", async () => {
    // The workers started and the scripts compiled: a second call while the first is in flight starts a second worker
    // (on two cores or more), among which the calls below may be split.
    const first = judgeTestsReply(reply(TESTS));
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([first, judgeTestsReply(reply(TESTS))]);
    expect(await judged(TESTS)).toEqual({
      verdict: { ok: true, value: ["tests/test_stats.py::test_median_of_three"] },
      rounds: 1,
      calls: 3,
    });
  });

  it("refuses a reply the text checks refuse before any parser sees it", async () => {
    const { verdict, calls } = await judged(`${TESTS}# \ud800\n`);
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringMatching(/^the review refused the tests: .*lone surrogate/) });
    expect(calls).toBe(0);
  });

  it("refuses what the review refuses, whatever the outline found", async () => {
    const { verdict } = await judged(`${TESTS}\n\ndef pytest_configure(config):\n    pass\n`);
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringMatching(/^the review refused the tests: .*\(pytest-hook\)/) });
  });

  it("refuses a name another node's block in the file holds", async () => {
    const clash = `${TESTS}\n\ndef test_median_of_two():\n    assert median([1, 3]) == 2\n`;
    const current = upsertTestBlock(CURRENT, "median_low", "def test_median_of_two():\n    assert True\n");
    const verdict = await judgeTestsReply({ ...reply(clash), current });
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringContaining("test_median_of_two") });
  });
});
