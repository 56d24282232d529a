import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FIX_CONTEXT_CHARS, FixLocalization } from "../../src/engine/fix-context.js";
import { CodeIntelligence } from "../../src/lsp/code-intelligence.js";
import { LOCALIZATION_QUERY_LIMIT } from "../../src/localize/query-log.js";
import { parseRpgText } from "../../src/rpg/load.js";
import type { Rpg } from "../../src/rpg/schema.js";
import { labLeaf } from "../helpers/scripted-model.js";
import { rpgDoc, text } from "../helpers/rpg.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
const opened: CodeIntelligence[] = [];
afterAll(() => Promise.all(opened.map((ci) => ci.close())));

/** `top` in src/lab/top.py depends on `count` helpers d1..dN, each in its own module with its code written. */
function workTree(count: number): { root: string; rpg: Rpg } {
  const root = tempDir();
  mkdirSync(join(root, "src", "lab"), { recursive: true });
  const helpers = Array.from({ length: count }, (_, i) => `d${i + 1}`);
  for (const name of helpers) writeFileSync(join(root, "src", "lab", `${name}.py`), `def ${name}(x):\n    return x + ${name.slice(1)}\n`);
  writeFileSync(join(root, "src", "lab", "top.py"), "def top(x):\n    raise NotImplementedError\n");
  const loaded = parseRpgText(text(rpgDoc([...helpers.map((h) => labLeaf(h)), labLeaf("top", "top", helpers)])), "rpg.json");
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return { root, rpg: loaded.value };
}

async function localizerOf(count: number, withIntelligence: boolean) {
  const { root, rpg } = workTree(count);
  const intelligence = withIntelligence ? await CodeIntelligence.start({ root, server: false }) : undefined;
  if (intelligence) opened.push(intelligence);
  const localization = new FixLocalization({
    rpg,
    root,
    python: "python3",
    ...(intelligence ? { intelligence: async () => intelligence } : {}),
    statuses: () => new Map(),
  });
  const node = rpg.nodes.find((n) => n.id === "top")!;
  const deps = rpg.nodes.filter((n) => n.id !== "top");
  return localization.forNode(node, deps, ["src/lab/top.py"]);
}

describe("the localization a fix request is given (decision 0028)", () => {
  it("holds each iteration to the query limit, and asks what did not fit in the next one instead of repeating itself", async () => {
    const localizer = await localizerOf(25, true);
    const first = await localizer.gather(1, [{ name: "test_top", message: "AssertionError: assert 3 == 4" }]);
    // One traversal and 19 of the 25 dependencies: the 20th query would be the 21st... never asked.
    expect(first.queries).toHaveLength(LOCALIZATION_QUERY_LIMIT);
    expect(first.queries.map((q) => q.tool)).toEqual(["explore_dependencies", ...Array<string>(19).fill("find_symbol")]);
    expect(localizer.log.remaining).toBe(0);
    const second = await localizer.gather(2, [{ name: "test_top", message: "AssertionError: assert 3 == 4" }]);
    // The 6 dependencies left and the search; nothing asked twice.
    expect(second.queries.map((q) => q.query)).toEqual([
      ...["d20", "d21", "d22", "d23", "d24", "d25"].map((d) => `${d} in src/lab/${d}.py`),
      "assert 3 == 4",
    ]);
    const all = localizer.log.entries().map((q) => `${q.tool} ${q.query}`);
    expect(new Set(all).size).toBe(all.length);
    // The second prompt has every answer, as far as the budget goes, and the first iteration's queries.
    const rendered = second.render(100_000);
    expect(rendered).toContain("| def d1(x):");
    expect(rendered).toContain("| def d25(x):");
    expect(rendered).toContain("Iteration 1:");
  });

  it("keeps to its character budget with whole answers, and says how many were left out", async () => {
    const localizer = await localizerOf(12, false);
    const context = await localizer.gather(1, []);
    expect(context.queries.map((q) => q.tool)).toEqual(["explore_dependencies", ...Array<string>(12).fill("view_code")]);
    const full = context.render(FIX_CONTEXT_CHARS);
    expect(full).toContain("| def d12(x):");
    const small = context.render(600);
    expect(small.length).toBeLessThanOrEqual(600);
    expect(small).toMatch(/\(\d+ more answers left out to fit the prompt\)$/);
    expect(small).not.toContain("def d12(x)");
    expect(context.render(0)).toBe("");
  });

  it("falls back to the code view when code intelligence finds no definition, which shows a missing one as not yet generated", async () => {
    const { root, rpg } = workTree(2);
    rmSync(join(root, "src", "lab", "d2.py"));
    const intelligence = await CodeIntelligence.start({ root, server: false });
    opened.push(intelligence);
    const localizer = new FixLocalization({
      rpg,
      root,
      python: "python3",
      intelligence: async () => intelligence,
      statuses: () => new Map(),
    }).forNode(
      rpg.nodes.find((n) => n.id === "top")!,
      rpg.nodes.filter((n) => n.id !== "top"),
      [],
    );
    const context = await localizer.gather(1, []);
    expect(context.queries.map((q) => `${q.tool} ${q.query}`)).toEqual([
      "explore_dependencies top",
      "find_symbol d1 in src/lab/d1.py",
      "find_symbol d2 in src/lab/d2.py",
      "view_code d2",
    ]);
    const rendered = context.render(FIX_CONTEXT_CHARS);
    expect(rendered).toContain("| def d1(x):");
    expect(rendered).toContain("src/lab/d2.py (node d2): not yet generated: src/lab/d2.py does not exist");
  });
});
