import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

/** A fresh copy of the module, so its cache starts empty under the PATH the test sets. */
async function freshFindPython(): Promise<() => Promise<string>> {
  vi.resetModules();
  return (await import("../../src/sandbox/python.js")).findPython;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("findPython", () => {
  it("resolves python3 on PATH to the interpreter's absolute sys.executable", async () => {
    const findPython = await freshFindPython();
    const expected = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
    const found = await findPython();
    expect(isAbsolute(found)).toBe(true);
    expect(found).toBe(expected);
  });

  it("resolves once and answers later calls from the cache, even after PATH changes", async () => {
    const findPython = await freshFindPython();
    const first = await findPython();
    vi.stubEnv("PATH", tempDir());
    await expect(findPython()).resolves.toBe(first);
  });

  it("throws SANDBOX_NO_PYTHON with an install hint when there is no python3", async () => {
    const findPython = await freshFindPython();
    vi.stubEnv("PATH", tempDir());
    // The fresh module graph has its own RpgForgeError class, so compare by name.
    await expect(findPython()).rejects.toMatchObject({
      name: "RpgForgeError",
      code: "SANDBOX_NO_PYTHON",
      hint: expect.stringContaining("pytest"),
    });
  });

  it("throws SANDBOX_NO_PYTHON when the interpreter has no pytest", async () => {
    const findPython = await freshFindPython();
    const bin = tempDir();
    // A python3 whose sys.executable cannot run `-m pytest`.
    writeFileSync(join(bin, "python3"), "#!/bin/sh\necho /bin/false\n");
    chmodSync(join(bin, "python3"), 0o755);
    vi.stubEnv("PATH", `${bin}:/usr/bin:/bin`);
    await expect(findPython()).rejects.toMatchObject({
      code: "SANDBOX_NO_PYTHON",
      message: expect.stringContaining("pytest does not run with /bin/false"),
    });
  });
});
