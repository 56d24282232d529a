import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CodeIntelligence } from "../../src/lsp/code-intelligence.js";
import { alive, writeRepo } from "./fixture.js";

// A server that stops answering (SIGSTOP) hangs every request: the time limit ends it, and the parser answers.
let root: string;
let ci: CodeIntelligence;

beforeAll(async () => {
  root = writeRepo();
  ci = await CodeIntelligence.start({ root, requestTimeoutMs: 3_000 });
});

afterAll(async () => {
  await ci?.close();
  rmSync(root, { recursive: true, force: true });
});

it("a request the server does not answer in time falls back to the parser, and the server is killed", async () => {
  expect((await ci.findSymbol("median")).via).toBe("pyright");
  const pid = ci.serverPid!;
  process.kill(pid, "SIGSTOP");
  const started = performance.now();
  const found = await ci.findSymbol("median");
  const took = performance.now() - started;
  expect(found).toMatchObject({ via: "ast", value: [{ file: "src/statpkg/median.py", line: 4 }] });
  expect(found.warnings).toEqual([
    expect.stringMatching(
      /^pyright-langserver did not answer workspace\/symbol within 3 s.*; Python's parser answers instead, for the rest of the run$/,
    ),
  ]);
  expect(took).toBeGreaterThanOrEqual(2_900);
  expect(took).toBeLessThan(8_000);
  // SIGKILL ends a stopped process too: no orphan is left behind.
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  expect(alive(pid)).toBe(false);
});

it("a server that is stopped cleanly leaves no process behind", async () => {
  const other = await CodeIntelligence.start({ root });
  const pid = other.serverPid!;
  expect(alive(pid)).toBe(true);
  await other.close();
  expect(alive(pid)).toBe(false);
});

it("announcing a new file does not wait for the server's listing; the next request does, and falls back when it never comes", async () => {
  const other = await CodeIntelligence.start({ root, requestTimeoutMs: 3_000 });
  try {
    const pid = other.serverPid!;
    process.kill(pid, "SIGSTOP");
    writeFileSync(join(root, "src/statpkg/later.py"), "def later():\n    return 1\n");
    const started = performance.now();
    await other.filesChanged(["src/statpkg/later.py"]);
    // A stopped server lists nothing: waiting here would take the whole time limit.
    expect(performance.now() - started).toBeLessThan(1_000);
    const found = await other.findSymbol("later");
    expect(found).toMatchObject({ via: "ast", value: [{ file: "src/statpkg/later.py", line: 1 }] });
    expect(found.warnings).toEqual([
      expect.stringMatching(/^pyright-langserver did not list the workspace again after files were created or deleted within 3 s/),
    ]);
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(pid)).toBe(false);
  } finally {
    await other.close();
    rmSync(join(root, "src/statpkg/later.py"), { force: true });
  }
});
