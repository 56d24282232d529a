import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startCodeIntelligence, type RunIntelligence } from "../../src/engine/run-intelligence.js";
import { CodeIntelligence } from "../../src/lsp/code-intelligence.js";
import { findPython } from "../../src/sandbox/python.js";

/**
 * Issue 16: the run's code intelligence hears of the files the nodes write when it is next asked something, all at once,
 * and not after each node: told after each node, pyright listed the workspace again for every new module. A real
 * pyright-langserver answers here, so that "asked" means found by the server, not by the parser standing in.
 */

let root: string | undefined;
let intelligence: RunIntelligence | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await intelligence?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  root = intelligence = undefined;
});

function module(dir: string, rel: string, name: string): string {
  mkdirSync(join(dir, rel, ".."), { recursive: true });
  writeFileSync(join(dir, rel), `def ${name}(x: int) -> int:\n    """${name}."""\n    return x\n`);
  return rel;
}

/** `hold`: what each announcement waits for before it reaches the server. */
async function started(hold: Promise<void> = Promise.resolve()): Promise<{ dir: string; run: RunIntelligence; announced: string[][] }> {
  const dir = mkdtempSync(join(tmpdir(), "rpg-forge-run-ci-"));
  root = dir;
  writeFileSync(join(dir, "pyproject.toml"), '[project]\nname = "lab"\nversion = "0.1.0"\n');
  module(dir, "src/lab/__init__.py", "first");
  const announced: string[][] = [];
  const told = CodeIntelligence.prototype.filesChanged;
  vi.spyOn(CodeIntelligence.prototype, "filesChanged").mockImplementation(async function (this: CodeIntelligence, paths, warnings) {
    announced.push([...paths].sort());
    await hold;
    return told.call(this, paths, warnings);
  });
  const run = startCodeIntelligence({ root: dir, python: await findPython(), server: true });
  intelligence = run;
  expect((await run.get())?.backend).toBe("pyright");
  return { dir, run, announced };
}

describe("the run's code intelligence", () => {
  it("tells the server of every file noted since its last question, in one announcement, before the next", async () => {
    const { dir, run, announced } = await started();
    const files = [module(dir, "src/lab/late.py", "late_one"), module(dir, "src/lab/later.py", "later_one")];
    await run.filesChanged([files[0]!]);
    await run.filesChanged([files[1]!, files[0]!]);
    expect(announced).toEqual([]);

    const ci = (await run.get())!;
    expect(announced).toEqual([files]);
    // Found by pyright itself: a server that had not heard of the new modules finds nothing, and the parser answers.
    for (const name of ["late_one", "later_one"]) {
      const found = await ci.findSymbol(name);
      expect(found.via).toBe("pyright");
      expect(found.value.map((m) => m.file)).toEqual([`src/lab/${name.replace("_one", "")}.py`]);
    }
    // Nothing noted since: nothing to tell.
    await run.get();
    expect(announced).toHaveLength(1);
  }, 60_000);

  it("answers no question before an announcement another question started is made", async () => {
    let release = (): void => undefined;
    const { dir, run, announced } = await started(new Promise<void>((resolve) => (release = resolve)));
    await run.filesChanged([module(dir, "src/lab/late.py", "late_one")]);
    const answered: string[] = [];
    // Two fixes asking at once: the first announces the file, the second finds nothing left to announce.
    const asked = ["first", "second"].map((who) => run.get().then((ci) => (answered.push(who), ci!)));
    await sleep(200);
    expect(announced).toHaveLength(1);
    expect(answered).toEqual([]);
    release();
    const second = (await Promise.all(asked))[1]!;
    expect(answered.sort()).toEqual(["first", "second"]);
    expect((await second.findSymbol("late_one")).via).toBe("pyright");
  }, 60_000);

  it("tells the server of the noted files before the dependency check", async () => {
    const { dir, run, announced } = await started();
    const file = module(dir, "src/lab/late.py", "late_one");
    await run.filesChanged([file]);
    const check = await run.checkDependencies({ nodes: [], edges: [] });
    expect(announced).toEqual([[file]]);
    expect(check?.planned).toBe(0);
  }, 60_000);
});
