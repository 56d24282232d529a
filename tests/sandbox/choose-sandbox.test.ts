import { execFileSync } from "node:child_process";
import { chmodSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type * as PytestModule from "../../src/sandbox/pytest.js";
import { chooseSandbox } from "../../src/sandbox/pytest.js";
import { useTempDirs } from "../helpers/temp-dir.js";
import { makePackage } from "./package-dir.js";

const tempDir = useTempDirs();
const realPython = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();

/** A fresh copy of the sandbox modules (their probes are cached) under a PATH holding only python3 and `extra` files. */
async function withPath(extra: Record<string, string> = {}): Promise<typeof PytestModule> {
  const bin = tempDir();
  symlinkSync(realPython, join(bin, "python3"));
  for (const [name, script] of Object.entries(extra)) {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }
  vi.stubEnv("PATH", bin);
  vi.resetModules();
  return import("../../src/sandbox/pytest.js");
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("chooseSandbox", () => {
  it("chooses bwrap when it works here, and process when process is asked for", async () => {
    await expect(chooseSandbox()).resolves.toEqual({ kind: "bwrap" });
    await expect(chooseSandbox("bwrap")).resolves.toEqual({ kind: "bwrap" });
    await expect(chooseSandbox("process")).resolves.toEqual({ kind: "process" });
  });

  it("falls back to process with a one-line warning when bwrap is not installed", async () => {
    const fresh = await withPath();
    const choice = await fresh.chooseSandbox();
    expect(choice).toEqual({ kind: "process", warning: expect.stringContaining("bwrap (bubblewrap) is not on PATH") });
    expect(choice.warning).not.toContain("\n");
  });

  it("falls back to process, giving bwrap's reason, when bwrap is installed but cannot create a sandbox", async () => {
    const fresh = await withPath({ bwrap: "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n" });
    const choice = await fresh.chooseSandbox();
    expect(choice).toEqual({ kind: "process", warning: expect.stringContaining("No permissions to create new namespace") });
    expect(choice.warning).not.toContain("\n");
  });

  it("throws SANDBOX_BWRAP_UNAVAILABLE when bwrap is asked for but unusable, and runPytest does too", async ({ onTestFinished }) => {
    const fresh = await withPath();
    await expect(fresh.chooseSandbox("bwrap")).rejects.toMatchObject({
      code: "SANDBOX_BWRAP_UNAVAILABLE",
      hint: expect.stringContaining("bubblewrap"),
    });
    const cwd = makePackage({ onTestFinished }, { "tests/test_ok.py": "def test_ok():\n    pass\n" });
    await expect(fresh.runPytest({ cwd, targets: [], sandbox: "bwrap" })).rejects.toMatchObject({ code: "SANDBOX_BWRAP_UNAVAILABLE" });
  });
});

describe("runPytest when the sandbox cannot start", () => {
  it("throws SANDBOX_START_FAILED with bwrap's message instead of reporting its exit code 1 as pytest's", async ({ onTestFinished }) => {
    // Exits as bwrap does when a mount fails: status 1 and a message, before the launcher in it could say it is ready.
    const fresh = await withPath({
      bwrap: "#!/bin/sh\necho 'bwrap: Can not mount tmpfs on /newroot/tmp: Operation not permitted' >&2\nexit 1\n",
    });
    const cwd = makePackage({ onTestFinished }, { "tests/test_ok.py": "def test_ok():\n    pass\n" });
    await expect(fresh.runPytest({ cwd, targets: [], sandbox: "bwrap" })).rejects.toMatchObject({
      code: "SANDBOX_START_FAILED",
      message: expect.stringContaining("Can not mount tmpfs"),
    });
  });
});
