import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCheckpoint } from "../../src/engine/checkpoint.js";
import { PackageFiles } from "../../src/workspace/package-files.js";

/** A 64 KiB file system of our own, so that a write really fails with ENOSPC. Needs root (CI runs as root). */
const dir = mkdtempSync(join(tmpdir(), "rpg-forge-full-"));
let mounted = false;
beforeAll(() => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
    mounted = true;
  } catch {
    mounted = false;
  }
  // CI runs as root: there a skipped test would hide a broken one.
  if (process.env.CI && !mounted) throw new Error("CI must be able to mount a tmpfs for the full-disk tests (run as root)");
});
afterAll(() => {
  if (mounted) execFileSync("umount", [dir]);
  rmSync(dir, { recursive: true, force: true });
});

describe("a full disk", () => {
  it("fails a write without touching the file it would have replaced, and leaves no temp file", async (test) => {
    if (!mounted) test.skip("cannot mount a tmpfs here (not root)");
    writeFileSync(join(dir, "core.py"), "def f():\n    return 1\n");
    const files = await PackageFiles.open(dir);
    await expect(files.write("core.py", "x".repeat(200_000))).rejects.toMatchObject({ code: "ENOSPC" });
    expect(readFileSync(join(dir, "core.py"), "utf8")).toBe("def f():\n    return 1\n");
    expect(readdirSync(dir)).toEqual(["core.py"]);
  });

  it("fails a work tree's write the same way, though it is not synced: old bytes on disk and in the ledger, no temp file", async (test) => {
    if (!mounted) test.skip("cannot mount a tmpfs here (not root)");
    const tree = join(dir, "tree");
    mkdirSync(tree);
    writeFileSync(join(tree, "core.py"), "def f():\n    return 1\n");
    const files = await PackageFiles.openTracked(tree);
    await expect(files.write("core.py", "x".repeat(200_000))).rejects.toMatchObject({ code: "ENOSPC" });
    expect(readFileSync(join(tree, "core.py"), "utf8")).toBe("def f():\n    return 1\n");
    expect(readdirSync(tree)).toEqual(["core.py"]);
    expect(await files.read("core.py")).toBe("def f():\n    return 1\n");
    expect(await files.verify()).toBeUndefined();
    rmSync(tree, { recursive: true });
  });

  it("keeps the previous checkpoint whole when the new one cannot be written", async (test) => {
    if (!mounted) test.skip("cannot mount a tmpfs here (not root)");
    const path = join(dir, "cp.json");
    const small = { version: 1 as const, run_id: "r", rpg_sha256: "", created_at: "t", updated_at: "t", nodes: {} };
    await writeCheckpoint(path, small);
    const huge = { ...small, run_id: "x".repeat(200_000) };
    await expect(writeCheckpoint(path, huge)).rejects.toMatchObject({
      code: "CHECKPOINT_WRITE_FAILED",
      message: expect.stringContaining("ENOSPC"),
    });
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(small);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
