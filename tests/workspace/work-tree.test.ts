import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createWorkTree, defaultWorkTree, removeWorkTree } from "../../src/workspace/work-tree.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

function output(): string {
  const out = tempDir();
  for (const [rel, content] of Object.entries({
    "pytest.ini": "[pytest]\n",
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "def f():\n    return 1\n",
    "tests/test_core.py": "def test_f():\n    pass\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    ".rpg-forge/runs/r/a/01-tests/tests.py": "old artifact\n",
    "src/pkg/__pycache__/core.cpython-311.pyc": "bytecode",
    ".venv/bin/python": "an interpreter",
  })) {
    mkdirSync(join(out, rel, ".."), { recursive: true });
    writeFileSync(join(out, rel), content);
  }
  return out;
}

describe("the work tree", () => {
  it("is a copy of the output without history, our state, caches or environments", async () => {
    const out = output();
    const work = defaultWorkTree(out);
    await createWorkTree(out, work);
    expect(readdirSync(work).sort()).toEqual([".rpg-forge-work-tree", "pytest.ini", "src", "tests"]);
    expect(readdirSync(join(work, "src/pkg")).sort()).toEqual(["__init__.py", "core.py"]);
    expect(readFileSync(join(work, "src/pkg/core.py"), "utf8")).toBe("def f():\n    return 1\n");
  });

  it("leaves symbolic links out, since they could point anywhere", async () => {
    const out = output();
    symlinkSync("/etc", join(out, "src/pkg/etc"));
    const work = defaultWorkTree(out);
    await createWorkTree(out, work);
    expect(existsSync(join(work, "src/pkg/etc"))).toBe(false);
  });

  it("is rebuilt from the output on the next run, dropping what the last run left in it", async () => {
    const out = output();
    const work = defaultWorkTree(out);
    await createWorkTree(out, work);
    const folder = statSync(work);
    writeFileSync(join(work, "src/pkg/half_done.py"), "def g(:\n");
    writeFileSync(join(work, "conftest.py"), "planted\n");
    await createWorkTree(out, work);
    expect(existsSync(join(work, "src/pkg/half_done.py"))).toBe(false);
    expect(readdirSync(work).sort()).toEqual([".rpg-forge-work-tree", "pytest.ini", "src", "tests"]);
    // The same folder, emptied: a sandbox that mounted it serves the next run's gates (src/sandbox/pytest.ts keys them by it).
    expect([statSync(work).ino, statSync(work).birthtimeMs]).toEqual([folder.ino, folder.birthtimeMs]);
    await removeWorkTree(work);
    expect(existsSync(work)).toBe(false);
    expect(existsSync(join(out, "src/pkg/core.py"))).toBe(true);
  });

  it("refuses a .rpg-forge that is a link, which would put the tree (and its removal) somewhere else", async () => {
    const out = output();
    const elsewhere = tempDir();
    rmSync(join(out, ".rpg-forge"), { recursive: true });
    symlinkSync(elsewhere, join(out, ".rpg-forge"));
    await expect(createWorkTree(out, defaultWorkTree(out))).rejects.toMatchObject({
      code: "WORK_TREE_REFUSED",
      message: expect.stringContaining("is not a folder"),
    });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("refuses to empty a folder that is not one of ours, or one that holds the output", async () => {
    const out = output();
    const someone = join(out, ".rpg-forge", "work");
    mkdirSync(someone, { recursive: true });
    writeFileSync(join(someone, "notes.txt"), "mine\n");
    await expect(createWorkTree(out, someone)).rejects.toMatchObject({ code: "WORK_TREE_REFUSED" });
    expect(readFileSync(join(someone, "notes.txt"), "utf8")).toBe("mine\n");
    await expect(createWorkTree(out, join(out, ".."))).rejects.toMatchObject({ code: "WORK_TREE_REFUSED" });
    await removeWorkTree(someone);
    expect(existsSync(join(someone, "notes.txt"))).toBe(true);
  });
});
