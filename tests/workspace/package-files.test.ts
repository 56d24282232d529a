import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
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
