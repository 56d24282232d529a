import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeTree } from "../../src/sandbox/remove-tree.js";

const made: string[] = [];
const folder = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "rpg-forge-remove-"));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** What a test run's private folder can hold when removeTree is handed it: small, large, with links and locked folders. */
describe("removing a folder the tests could write to", () => {
  it("removes a run's usual few entries", async () => {
    const dir = join(folder(), "run");
    mkdirSync(join(dir, "home"), { recursive: true });
    mkdirSync(join(dir, "tmp"));
    writeFileSync(join(dir, "junit.xml"), "<testsuites/>");
    await removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it("removes a tree too large to take at once, nested folders and all", async () => {
    const dir = join(folder(), "run");
    for (let i = 0; i < 20; i++) {
      mkdirSync(join(dir, "tmp", `d${i}`, "deeper"), { recursive: true });
      writeFileSync(join(dir, "tmp", `d${i}`, "deeper", "f.txt"), String(i));
    }
    await removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it("removes a link, never what it points to, small tree or large", async () => {
    const outside = folder();
    writeFileSync(join(outside, "keep.txt"), "mine");
    for (const extra of [0, 40]) {
      const dir = join(folder(), "run");
      mkdirSync(join(dir, "tmp"), { recursive: true });
      symlinkSync(outside, join(dir, "tmp", "to-folder"));
      symlinkSync(join(outside, "keep.txt"), join(dir, "tmp", "to-file"));
      for (let i = 0; i < extra; i++) writeFileSync(join(dir, "tmp", `f${i}`), "");
      await removeTree(dir);
      expect(existsSync(dir)).toBe(false);
    }
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("mine");
  });

  it("removes folders left without permissions", async () => {
    const dir = join(folder(), "run");
    mkdirSync(join(dir, "tmp", "locked", "inner"), { recursive: true });
    writeFileSync(join(dir, "tmp", "locked", "inner", "f.txt"), "x");
    chmodSync(join(dir, "tmp", "locked", "inner"), 0o000);
    chmodSync(join(dir, "tmp", "locked"), 0o000);
    await removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });
});
