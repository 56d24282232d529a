import { describe, expect, it } from "vitest";
import { findPython } from "../../src/sandbox/python.js";
import { pluginsFor } from "../../src/sandbox/pytest-plugins.js";
import { runPytest } from "../../src/sandbox/pytest.js";
import { makePackage } from "./package-dir.js";

describe("pytest plugins", () => {
  it("loads no plugin for a package that requires none", async () => {
    expect(await pluginsFor(await findPython(), [])).toEqual([]);
    expect(await pluginsFor(await findPython(), ["numpy>=1.24", "no-such-dist"])).toEqual([]);
  });

  it("turns auto-loading off when told which plugins to load", async (test) => {
    const dir = makePackage(test, {
      "tests/test_env.py": "import os\n\ndef test_env():\n    assert os.environ.get('PYTEST_DISABLE_PLUGIN_AUTOLOAD') == '1'\n",
    });
    const result = await runPytest({ cwd: dir, targets: ["tests/test_env.py"], sandbox: "process", plugins: [] });
    expect(result.exitCode).toBe(0);
  });
});
