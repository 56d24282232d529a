import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { PytestResult } from "../../src/sandbox/pytest.js";
import { verifyFolder } from "../../src/engine/verify-folder.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

/** An output with one module, and a stand-in for pytest that reads the folder it is given before and after a pause. */
function setUp() {
  const out = tempDir();
  mkdirSync(join(out, "src"));
  writeFileSync(join(out, "src/kept.py"), "KEPT = 1\n");
  const seen: { cwd: string; targets: readonly string[]; before: string; after: string; kept: boolean }[] = [];
  const pytestIn = (cwd: string) => async (targets: readonly string[]) => {
    const read = () => readFileSync(join(cwd, "tests/test_it.py"), "utf8");
    const before = read();
    await sleep(30);
    seen.push({ cwd, targets, before, after: read(), kept: existsSync(join(cwd, "src/kept.py")) });
    return { exitCode: 0 } as PytestResult;
  };
  return { out, seen, verify: verifyFolder(out, pytestIn) };
}

describe("the folder where a run's integration tests and snapshot suites run", () => {
  it("is one folder, a copy of the output with each suite's files laid over it", async () => {
    const { out, seen, verify } = setUp();
    await verify.runTests(new Map([["tests/test_it.py", "first"]]), ["tests/test_it.py"]);
    await verify.runTests(new Map([["tests/test_it.py", "second"]]), ["tests/test_it.py"]);
    expect(seen.map((s) => [s.cwd, s.before, s.kept])).toEqual([
      [join(out, ".rpg-forge/verify"), "first", true],
      [join(out, ".rpg-forge/verify"), "second", true],
    ]);
    // The output itself is never where generated code runs.
    expect(existsSync(join(out, "tests/test_it.py"))).toBe(false);
  });

  it("runs suites asked for at once one after the other: neither empties the folder the other is testing", async () => {
    const { seen, verify } = setUp();
    const results = await Promise.all(
      ["first", "second", "third"].map((text) => verify.runTests(new Map([["tests/test_it.py", text]]), [text])),
    );
    expect(results.map((r) => r.exitCode)).toEqual([0, 0, 0]);
    expect(seen.map((s) => [s.targets[0], s.before, s.after])).toEqual([
      ["first", "first", "first"],
      ["second", "second", "second"],
      ["third", "third", "third"],
    ]);
  });

  it("goes on after a suite that threw, and is removed at the end", async () => {
    const { out, verify } = setUp();
    const failing = verify.runTests(new Map([["../escape.py", "x"]]), ["t"]);
    const next = verify.runTests(new Map([["tests/test_it.py", "after"]]), ["t"]);
    await expect(failing).rejects.toThrow();
    await expect(next).resolves.toMatchObject({ exitCode: 0 });
    await verify.remove();
    expect(existsSync(join(out, ".rpg-forge/verify"))).toBe(false);
  });
});
