import { rmSync } from "node:fs";
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
