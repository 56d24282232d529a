import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/engine/generate.js";
import { createOpenAiProvider } from "../../src/llm/openai-provider.js";
import { committedReport } from "../../src/report/generation-report.js";
import { writeRunReport } from "../../src/report/run-report.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { startScriptedOpenAi, type FakeOpenAi } from "../helpers/fake-openai-server.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";

/**
 * `generate` into an output whose src/ is a 64 KiB file system of its own: one node's
 * module is too big to write there (the checkpoint and artifacts have room, elsewhere).
 * Needs root to mount (CI runs as root).
 */
const out = mkdtempSync(join(tmpdir(), "rpg-forge-full-out-"));
const src = join(out, "src");
let mounted = false;
let fake: FakeOpenAi | undefined;
beforeAll(() => {
  try {
    mkdirSync(src);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", src], { stdio: "ignore" });
    mounted = true;
  } catch {
    mounted = false;
  }
  // CI runs as root: there a skipped test would hide a broken one.
  if (process.env.CI && !mounted) throw new Error("CI must be able to mount a tmpfs for the full-disk tests (run as root)");
});
afterAll(async () => {
  await fake?.close();
  if (mounted) execFileSync("umount", [src]);
  rmSync(out, { recursive: true, force: true });
});

const tests = (name: string) => ({
  content: JSON.stringify({
    test_code: `from pkg.${name} import ${name}\n\n\ndef test_${name}():\n    assert ${name}(1) == 2\n`,
    notes: "",
  }),
});
const implementation = (name: string, padding = "") => ({
  content: JSON.stringify({ imports: [], code: `def ${name}(x):\n    """Add one.${padding}"""\n    return x + 1\n`, notes: "" }),
});

describe("a full disk under generate", () => {
  it("fails the node whose module does not fit, keeps its previous file, and writes the rest", async (test) => {
    if (!mounted) test.skip("cannot mount a tmpfs here (not root)");
    mkdirSync(join(out, "src/pkg"), { recursive: true });
    writeFileSync(join(out, "src/pkg/big.py"), "# written by hand before the run\n");
    fake = await startScriptedOpenAi([tests("big"), implementation("big", "x".repeat(100_000)), tests("small"), implementation("small")]);
    const loaded = parseRpgText(
      text(
        rpgDoc([leaf({ id: "big", name: "big", file: "src/pkg/big.py" }), leaf({ id: "small", name: "small", file: "src/pkg/small.py" })]),
      ),
      "rpg.json",
    );
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const result = await generate({
      rpg: loaded.value,
      rpgPath: "rpg.json",
      rpgSha256: "0123",
      outDir: out,
      provider: createOpenAiProvider({ apiKey: "test-key", baseURL: fake.url, model: "fake-model", maxRetries: 0 }),
      model: "fake-model",
      mode: "new",
      git: false,
      sandbox: "process",
      renderCommittedReport: committedReport,
    });
    const checkpoint = JSON.parse(readFileSync(result.checkpointPath, "utf8"));
    expect(checkpoint.nodes.big).toMatchObject({
      status: "failed",
      failure_reason: expect.stringMatching(/^write failed: cannot write src\/pkg\/big\.py: ENOSPC/),
    });
    expect(checkpoint.nodes.small.status).toBe("passed");
    expect(readFileSync(join(out, "src/pkg/big.py"), "utf8")).toBe("# written by hand before the run\n");
    expect(readFileSync(join(out, "src/pkg/small.py"), "utf8")).toContain("return x + 1");
    expect(readdirSync(join(out, "tests"))).toEqual(["test_small.py"]);
    expect(readdirSync(join(out, "src/pkg")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(readFileSync(join(out, "docs/generation_report.md"), "utf8")).toContain("ENOSPC");
    const { path } = await writeRunReport(out, { ...result, rpgPath: "rpg.json", model: "fake-model" });
    expect(readFileSync(path, "utf8")).toContain("ENOSPC");
    expect(result.summary.counts).toMatchObject({ passed: 1, failed: 1 });
  });
});
