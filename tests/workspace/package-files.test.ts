import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PackageFiles } from "../../src/workspace/package-files.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

describe("PackageFiles", () => {
  it.each([
    ["../outside.py", "leaves the package"],
    ["src/../../outside.py", "leaves the package"],
    ["/etc/passwd", "not a relative POSIX path"],
    [".github/workflows/x.yml", ".github/ is never written"],
    [".git/hooks/pre-commit", ".git/ is never written"],
    [".GitHub/x", "is never written"],
  ])("refuses %s", async (rel, why) => {
    const files = await PackageFiles.open(tempDir());
    await expect(files.write(rel, "x")).rejects.toMatchObject({ code: "WORKSPACE_PATH_REFUSED", message: expect.stringContaining(why) });
  });

  it("refuses to write through a symbolic link planted in the package", async () => {
    const root = tempDir();
    const outside = tempDir();
    mkdirSync(join(root, "src"));
    symlinkSync(outside, join(root, "src", "pkg"));
    const files = await PackageFiles.open(root);
    await expect(files.write("src/pkg/core.py", "x = 1\n")).rejects.toMatchObject({ code: "WORKSPACE_PATH_REFUSED" });
    expect(existsSync(join(outside, "core.py"))).toBe(false);
  });

  it("restores a snapshot to the byte: changed files back, new files gone", async () => {
    const root = tempDir();
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "a.py"), "def a():\n    return 1\n");
    const files = await PackageFiles.open(root);
    const snapshot = await files.snapshot(["src/a.py", "tests/test_a.py"]);
    await files.write("src/a.py", "broken");
    await files.write("tests/test_a.py", "def test_a(): pass\n");
    await snapshot.restore();
    expect(readFileSync(join(root, "src", "a.py"), "utf8")).toBe("def a():\n    return 1\n");
    expect(existsSync(join(root, "tests", "test_a.py"))).toBe(false);
  });
});

describe("a tracked tree", () => {
  it("answers reads from the bytes it was given or wrote, and finds and undoes every other change", async () => {
    const root = tempDir();
    mkdirSync(join(root, "src/pkg"), { recursive: true });
    writeFileSync(join(root, "src/pkg/core.py"), "x = 1\n");
    writeFileSync(join(root, ".stamp"), "ours\n");
    const files = await PackageFiles.openTracked(root, [".stamp"]);
    await files.write("tests/test_core.py", "def test_x():\n    assert True\n");
    expect(await files.verify()).toBeUndefined();

    writeFileSync(join(root, "src/pkg/core.py"), "x = 2\n");
    writeFileSync(join(root, "tests/conftest.py"), "planted\n");
    mkdirSync(join(root, "src/pkg/__pycache__"));
    writeFileSync(join(root, "src/pkg/__pycache__/core.pyc"), "bytecode");
    mkdirSync(join(root, "empty"));
    symlinkSync("/etc/passwd", join(root, "src/link.py"));
    rmSync(join(root, "tests/test_core.py"));
    writeFileSync(join(root, ".stamp"), "not the package's\n");
    expect(await files.read("src/pkg/core.py")).toBe("x = 1\n");

    expect(await files.verify()).toEqual({
      changed: ["src/pkg/core.py"],
      added: expect.arrayContaining(["tests/conftest.py", "src/pkg/__pycache__/core.pyc", "src/link.py"]),
      removed: ["tests/test_core.py"],
    });
    expect(readFileSync(join(root, "src/pkg/core.py"), "utf8")).toBe("x = 1\n");
    expect(readFileSync(join(root, "tests/test_core.py"), "utf8")).toContain("def test_x");
    for (const gone of ["tests/conftest.py", "src/pkg/__pycache__", "src/link.py", "empty"])
      expect(existsSync(join(root, gone))).toBe(false);
    expect(readFileSync(join(root, ".stamp"), "utf8")).toBe("not the package's\n");
    expect(await files.verify()).toBeUndefined();
  });
});

describe("a tracked tree's check reads only what may have changed", () => {
  /** A file rewritten with other bytes of the same size, its mtime set back as it was: what a test hiding its tracks does. */
  const rewriteInPlace = (path: string, content: string): void => {
    const before = statSync(path);
    writeFileSync(path, content);
    utimesSync(path, before.atime, before.mtime);
  };

  it("finds a file rewritten in place, same size and mtime, long after the engine wrote it", async () => {
    const root = tempDir();
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src/core.py"), "x = 1\n");
    // No racy window: the stat alone decides for every file, as it does for files written more than 2 s ago.
    const files = await PackageFiles.openTracked(root, [], 0n);
    await new Promise((done) => setTimeout(done, 20));
    expect(await files.verify()).toBeUndefined();
    rewriteInPlace(join(root, "src/core.py"), "x = 2\n");
    expect(await files.verify()).toEqual({ changed: ["src/core.py"], added: [], removed: [] });
    expect(readFileSync(join(root, "src/core.py"), "utf8")).toBe("x = 1\n");
  });

  it.each([
    ["long after the engine wrote it", 0n],
    ["just after the engine wrote it", undefined],
  ])("writes bytes the engine knows again when the file was changed behind it, %s", async (_, racyWindowNs) => {
    const root = tempDir();
    const files = await PackageFiles.openTracked(root, [], racyWindowNs);
    await files.write("src/core.py", "x = 1\n");
    await new Promise((done) => setTimeout(done, 20));
    rewriteInPlace(join(root, "src/core.py"), "x = 4\n");
    await files.write("src/core.py", "x = 1\n");
    expect(readFileSync(join(root, "src/core.py"), "utf8")).toBe("x = 1\n");
    rmSync(join(root, "src/core.py"));
    await files.write("src/core.py", "x = 1\n");
    expect(readFileSync(join(root, "src/core.py"), "utf8")).toBe("x = 1\n");
    expect(await files.verify()).toBeUndefined();
  });

  it("leaves a file alone when it holds the bytes written already, as the engine left it", async () => {
    const root = tempDir();
    const files = await PackageFiles.openTracked(root, [], 0n);
    await files.write("src/core.py", "x = 1\n");
    const inode = statSync(join(root, "src/core.py")).ino;
    await new Promise((done) => setTimeout(done, 20));
    await files.write("src/core.py", "x = 1\n");
    // Not replaced: a write puts a new file (a new inode) in place by renaming.
    expect(statSync(join(root, "src/core.py")).ino).toBe(inode);
    await files.write("src/core.py", "x = 2\n");
    expect(statSync(join(root, "src/core.py")).ino).not.toBe(inode);
  });

  it("compares the bytes of a file the engine wrote just now, whatever its stat says", async () => {
    const root = tempDir();
    const files = await PackageFiles.openTracked(root);
    await files.write("src/core.py", "x = 1\n");
    // At once, in the same tick of the kernel's clock as the engine's write: the stat may not move at all.
    rewriteInPlace(join(root, "src/core.py"), "x = 3\n");
    expect(await files.verify()).toEqual({ changed: ["src/core.py"], added: [], removed: [] });
  });
});
