import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runPythonScript } from "../../src/python-helpers/run-script.js";
import { analyzeArcs } from "../../src/sandbox/coverage-analysis.js";
import { findPythonSetup } from "../../src/sandbox/python.js";

const userSite = mkdtempSync(join(tmpdir(), "rpg-forge-user-site-"));
afterAll(() => rmSync(userSite, { recursive: true, force: true }));

describe("coverage.py's analysis in a helper worker", () => {
  it("leaves the worker's sys.path as it found it, for the helper calls after it", async () => {
    const setup = await findPythonSetup();
    const module = join(userSite, "module.py");
    // Whether coverage.py is there or not (the import then fails), the user site's entries must not stay behind.
    await analyzeArcs({ ...setup, userSitePath: [userSite] }, module, []).catch(() => undefined);
    const seen = await runPythonScript(setup.executable, `import sys\nprint(${JSON.stringify(userSite)} in sys.path)\n`);
    expect(seen).toBe("False\n");
  });
});
