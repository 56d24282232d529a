import { describe, expect, it, vi } from "vitest";
import { RpgForgeError } from "../../src/errors.js";
import { LOCALIZATION_QUERY_LIMIT, LocalizationExhaustedError, LocalizationLog } from "../../src/localize/query-log.js";

describe("LocalizationLog", () => {
  it("test_localization_limit: the 21st attempt of an iteration raises LocalizationExhaustedError", () => {
    const log = new LocalizationLog({ nodeId: "stats.mean" });
    for (let i = 1; i <= 20; i++) log.record("search_rpg", `query ${i}`, [`stats.node_${i} (0.50)`]);
    expect(log.remaining).toBe(0);

    let thrown: unknown;
    try {
      log.record("search_rpg", "query 21", []);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LocalizationExhaustedError);
    expect(thrown).toBeInstanceOf(RpgForgeError);
    const error = thrown as LocalizationExhaustedError;
    expect(error).toMatchObject({
      code: "LOCALIZE_EXHAUSTED",
      iteration: 1,
      limit: LOCALIZATION_QUERY_LIMIT,
      at: { nodeId: "stats.mean" },
    });
    // The whole history travels with it, for the person the node is handed to; the 21st was not logged.
    expect(error.history.map((q) => q.query)).toEqual(Array.from({ length: 20 }, (_, i) => `query ${i + 1}`));
    expect(log.entries()).toHaveLength(20);
  });

  it("gives each iteration a fresh budget and keeps the history", () => {
    const log = new LocalizationLog({ limit: 2 });
    log.record("search_rpg", "a", []);
    log.record("view_code", "b", []);
    expect(() => log.record("search_rpg", "c", [])).toThrow(LocalizationExhaustedError);
    log.nextIteration();
    expect(log.iteration).toBe(2);
    expect(log.remaining).toBe(2);
    const entry = log.record("explore_dependencies", "stats.mean", ["depends on: none"]);
    expect(entry).toEqual({ iteration: 2, n: 1, tool: "explore_dependencies", query: "stats.mean", results: ["depends on: none"] });
    expect(log.entries().map((q) => q.query)).toEqual(["a", "b", "stats.mean"]);
    expect(log.entries(1)).toHaveLength(2);
  });

  it("run checks the budget before running the query, and logs results and failures", async () => {
    const log = new LocalizationLog({ limit: 2 });
    await expect(
      log.run(
        "search_rpg",
        "mean",
        () => ["stats.mean"],
        (ids) => ids.map((id) => `${id} (0.91)`),
      ),
    ).resolves.toEqual(["stats.mean"]);
    await expect(
      log.run(
        "view_code",
        "src/x.py",
        () => {
          throw new Error("no such file");
        },
        () => [],
      ),
    ).rejects.toThrow("no such file");
    const third = vi.fn(() => []);
    await expect(log.run("search_rpg", "again", third, () => [])).rejects.toBeInstanceOf(LocalizationExhaustedError);
    expect(third).not.toHaveBeenCalled();
    expect(log.entries()).toEqual([
      { iteration: 1, n: 1, tool: "search_rpg", query: "mean", results: ["stats.mean (0.91)"] },
      { iteration: 1, n: 2, tool: "view_code", query: "src/x.py", results: [], error: "no such file" },
    ]);
  });

  it("counts queries still running against the budget", async () => {
    const log = new LocalizationLog({ limit: 1 });
    let finish!: () => void;
    const slow = log.run(
      "search_rpg",
      "slow",
      () => new Promise<void>((resolve) => (finish = resolve)),
      () => [],
    );
    await expect(
      log.run(
        "search_rpg",
        "fast",
        () => undefined,
        () => [],
      ),
    ).rejects.toBeInstanceOf(LocalizationExhaustedError);
    finish();
    await slow;
    expect(log.entries().map((q) => q.query)).toEqual(["slow"]);
  });

  it("renders the history compactly for the next prompt: each query once, its first results, a count of repeats", () => {
    const log = new LocalizationLog();
    log.record("search_rpg", "mean calculation", [
      "stats.mean (1.85)",
      "stats.median (1.12)",
      "report.summarize (1.08)",
      "stats.z_scores (1.02)",
    ]);
    log.record("search_rpg", "mean calculation", ["stats.mean (1.85)"]);
    log.nextIteration();
    log.record("view_code", "src/statkit/stats/descriptive.py", [], "LOCALIZE_PATH_REFUSED: nope");
    expect(log.render()).toBe(
      [
        "Localization queries already asked (1 of 20 used in iteration 2); do not ask them again:",
        "Iteration 1:",
        '  1. search_rpg "mean calculation" (asked 2 times) -> stats.mean (1.85); stats.median (1.12); report.summarize (1.08); +1 more',
        "Iteration 2:",
        '  1. view_code "src/statkit/stats/descriptive.py" -> failed: LOCALIZE_PATH_REFUSED: nope',
      ].join("\n"),
    );
  });

  it("keeps the newest iterations when the history is longer than the room given", () => {
    const log = new LocalizationLog();
    for (let it = 1; it <= 8; it++) {
      for (let q = 1; q <= 5; q++) log.record("search_rpg", `iteration ${it} question ${q} about something long enough`, ["x (0.10)"]);
      log.nextIteration();
    }
    const text = log.render({ maxChars: 1200 });
    expect(text.length).toBeLessThanOrEqual(1200);
    expect(text).toContain("Iteration 8:");
    expect(text).not.toContain("Iteration 1:");
    expect(text).toMatch(/\(\d+ queries of earlier iterations left out\)/);
    expect(new LocalizationLog().render()).toBe("");
  });
});
