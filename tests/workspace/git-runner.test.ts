import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { gitIn } from "../../src/workspace/git-runner.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();
// Every variable a test plants or removes is put back after it.
afterEach(() => {
  vi.unstubAllEnvs();
});

function repository(): string {
  const dir = tempDir();
  execFileSync("git", ["init", "-q", dir]);
  return dir;
}

const text = async (run: Promise<Buffer>): Promise<string> => (await run).toString("utf8").trim();

describe("gitIn's environment", () => {
  it("drops the GIT_* variables that move git to another repository or add config, and the program variables", async () => {
    const ours = repository();
    const theirs = repository();
    vi.stubEnv("GIT_DIR", join(theirs, ".git"));
    vi.stubEnv("GIT_CONFIG_COUNT", "1");
    vi.stubEnv("GIT_CONFIG_KEY_0", "user.planted");
    vi.stubEnv("GIT_CONFIG_VALUE_0", "yes");
    vi.stubEnv("PAGER", "planted-pager");
    vi.stubEnv("VISUAL", undefined);
    vi.stubEnv("GIT_EDITOR", undefined);
    vi.stubEnv("EDITOR", "planted-editor");
    // Without a terminal type, git refuses to name an editor at all, planted or not.
    vi.stubEnv("TERM", "xterm");
    // An index elsewhere that lists a file: git would show it as ours.
    const planted = join(tempDir(), "index");
    writeFileSync(join(theirs, "theirs.txt"), "x\n");
    execFileSync("git", ["-C", theirs, "add", "theirs.txt"], { env: { ...process.env, GIT_DIR: undefined, GIT_INDEX_FILE: planted } });
    vi.stubEnv("GIT_INDEX_FILE", planted);
    const git = gitIn(ours);
    expect(await text(git(["rev-parse", "--absolute-git-dir"]))).toBe(join(ours, ".git"));
    expect(await text(git(["ls-files"]))).toBe("");
    await expect(git(["config", "user.planted"])).rejects.toMatchObject({ code: 1 });
    expect(await text(git(["var", "GIT_PAGER"]))).not.toBe("planted-pager");
    expect(await text(git(["var", "GIT_EDITOR"]))).not.toBe("planted-editor");
    // The same variables for a caller's own index and its own variables.
    const indexed = gitIn(ours, { indexFile: join(tempDir(), "index"), env: { GIT_AUTHOR_NAME: "Caller" } });
    expect(await text(indexed(["rev-parse", "--absolute-git-dir"]))).toBe(join(ours, ".git"));
    expect(await text(indexed(["var", "GIT_AUTHOR_IDENT"]))).toMatch(/^Caller </);
  });

  it("keeps who commits, and the rest of the environment, as it is at each call", async () => {
    const dir = repository();
    const git = gitIn(dir);
    const before = await text(git(["var", "GIT_AUTHOR_IDENT"]));
    expect(before).toMatch(new RegExp(`^${process.env.GIT_AUTHOR_NAME} <`));
    // Read at each call, not when gitIn was made: a variable set later counts, and one planted later is dropped.
    vi.stubEnv("GIT_AUTHOR_NAME", "Set Later");
    expect(await text(git(["var", "GIT_AUTHOR_IDENT"]))).toMatch(/^Set Later </);
    vi.stubEnv("PAGER", "planted-pager");
    expect(await text(git(["var", "GIT_PAGER"]))).not.toBe("planted-pager");
    vi.stubEnv("PAGER", undefined);
    vi.stubEnv("GIT_CONFIG_COUNT", "1");
    vi.stubEnv("GIT_CONFIG_KEY_0", "user.planted");
    vi.stubEnv("GIT_CONFIG_VALUE_0", "yes");
    await expect(git(["config", "user.planted"])).rejects.toMatchObject({ code: 1 });
    writeFileSync(join(dir, "f.txt"), "x\n");
    expect(await text(git(["status", "--porcelain"]))).toBe("?? f.txt");
  });

  it("uses the caller's index file, never the repository's", async () => {
    const dir = repository();
    writeFileSync(join(dir, "f.txt"), "x\n");
    const index = join(tempDir(), "index");
    await gitIn(dir, { indexFile: index })(["add", "f.txt"]);
    expect(await text(gitIn(dir, { indexFile: index })(["ls-files"]))).toBe("f.txt");
    expect(await text(gitIn(dir)(["ls-files"]))).toBe("");
  });
});
