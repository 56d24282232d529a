import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ramDiskUsable, scratchParent } from "../../scripts/test-scratch.mjs";

/**
 * Where `npm test` keeps its temporary files: on a RAM disk with room that runs programs, else in the system's temp
 * folder, and always in an explicit TMPDIR. Real tmpfs mounts of each kind; mounting needs root (CI runs as root).
 */
const root = mkdtempSync(join(tmpdir(), "rpg-forge-scratch-"));
const mounts = { roomy: join(root, "roomy"), small: join(root, "small"), noexec: join(root, "noexec") };
let mounted = false;

beforeAll(() => {
  try {
    // A size is a limit, not memory taken: an empty tmpfs of 1 GiB holds nothing.
    for (const [name, options] of [
      ["roomy", "size=1g"],
      ["small", "size=64m"],
      ["noexec", "size=1g,noexec"],
    ] as const) {
      mkdirSync(mounts[name]);
      execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", mounts[name]], { stdio: "ignore" });
    }
    mounted = true;
  } catch {
    mounted = false;
  }
  if (process.env.CI && !mounted) throw new Error("CI must be able to mount a tmpfs for the scratch folder's tests (run as root)");
});

afterAll(() => {
  for (const dir of Object.values(mounts)) {
    try {
      execFileSync("umount", [dir], { stdio: "ignore" });
    } catch {
      // not mounted
    }
  }
  rmSync(root, { recursive: true, force: true });
});

describe("npm test's folder for temporary files", () => {
  it("takes a tmpfs with room where programs run", (context) => {
    if (!mounted) context.skip("cannot mount a tmpfs here (not root)");
    expect(ramDiskUsable(mounts.roomy)).toBe(true);
    // The probe it ran there is gone.
    expect(readdirSync(mounts.roomy)).toEqual([]);
  });

  it("refuses a tmpfs too small to share, and one mounted noexec (the tests run scripts they write)", (context) => {
    if (!mounted) context.skip("cannot mount a tmpfs here (not root)");
    expect(ramDiskUsable(mounts.small)).toBe(false);
    expect(ramDiskUsable(mounts.noexec)).toBe(false);
    expect(readdirSync(mounts.noexec)).toEqual([]);
  });

  it("refuses what is no tmpfs, and what is not there", () => {
    expect(ramDiskUsable("/proc")).toBe(false);
    expect(ramDiskUsable(join(root, "missing"))).toBe(false);
  });

  it("keeps an explicit TMPDIR, and otherwise takes /dev/shm only when it is usable", () => {
    expect(scratchParent({ TMPDIR: "/somewhere/of/mine" })).toBe("/somewhere/of/mine");
    expect(scratchParent({})).toBe(ramDiskUsable("/dev/shm") ? "/dev/shm" : tmpdir());
  });
});
