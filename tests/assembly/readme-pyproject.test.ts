import { describe, expect, it } from "vitest";
import { projectInfo, renderPyproject } from "../../src/assembly/pyproject.js";
import { renderPackageReadme } from "../../src/assembly/readme.js";
import { parseRpgText } from "../../src/rpg/load.js";
import type { Rpg } from "../../src/rpg/schema.js";
import { findPython } from "../../src/sandbox/python.js";
import { runPythonScript } from "../../src/python-helpers/run-script.js";
import { HOSTILE, HOSTILE_TEXT, livePayloads } from "../helpers/live-markdown.js";
import { leaf, rpgDoc, text } from "../helpers/rpg.js";
import { expectBalanced } from "../report/markdown-structure.js";

function load(doc: unknown): Rpg {
  const loaded = parseRpgText(text(doc), "rpg.json");
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.value;
}

describe("the generated README", () => {
  const rpg = load(
    rpgDoc(
      [
        leaf({
          id: "a",
          name: "mean",
          file: "src/stats/core.py",
          signature: `def mean(xs: list[float], note: str = "${HOSTILE.mention} \`") -> float`,
          docstring: `Return the mean. ${HOSTILE_TEXT}\n\nMore.`,
          examples: ["mean([1, 3])\n2.0", `mean([]) # ${HOSTILE_TEXT}\n\`\`\`\n${HOSTILE.tag}`],
        }),
        leaf({ id: "b", name: "median", file: "src/stats/core.py", docstring: `Median ${HOSTILE.link}.`, subgraph: "more" }),
      ],
      [],
      {
        metadata: { name: "stats", description: `Statistics ${HOSTILE_TEXT}` },
        subgraphs: [
          { id: "core", name: `Core ${HOSTILE.mention}`, description: `What ${HOSTILE.image} ${HOSTILE.comment}` },
          { id: "more", name: `More ${HOSTILE.tag}` },
        ],
      },
    ),
  );

  it("quotes the RPG's description, names, docstrings and examples inert", () => {
    const readme = renderPackageReadme(rpg, projectInfo(rpg, "out"), () => "passed");
    expect(livePayloads(readme)).toEqual([]);
    expectBalanced(readme);
  });

  it("keeps the examples in one fence that none of them can close", () => {
    const readme = renderPackageReadme(rpg, projectInfo(rpg, "out"), () => "passed");
    expect(readme).toContain("````python\n>>> from stats.core import mean\n>>> mean([1, 3])\n2.0\n");
    expect(readme).toContain("\n```\n<img src=x>\n````\n");
  });
});

describe("pyproject.toml", () => {
  const control = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("");

  it("escapes control characters, DEL, quotes, backslashes and lone surrogates so that tomllib reads the metadata back", async (ctx) => {
    const description = `a${control}\u007f"\\\u00e9 \ud83d\ude00 \ud800 z`;
    const info = { name: "stats", version: `1.0\u0000\u001b`, description, warnings: [] };
    const toml = renderPyproject(info, [`numpy>=1.24; python_version >= "3.9"\u007f`], ["src"], { "stats\n": "stats.cli:main" });
    // TOML allows none of these in a basic string.
    // eslint-disable-next-line no-control-regex
    expect(toml).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    const script = [
      "import json, sys",
      "try:",
      "    import tomllib",
      "except ImportError:",
      "    print(json.dumps(None)); sys.exit(0)",
      "doc = tomllib.loads(sys.stdin.read())",
      "print(json.dumps([doc['project'], doc['project']['scripts']]))",
    ].join("\n");
    const parsed = JSON.parse(await runPythonScript(await findPython(), script, toml)) as [Record<string, unknown>, unknown] | null;
    if (parsed === null) return ctx.skip(); // tomllib came with Python 3.11
    const [project, scripts] = parsed;
    expect(project.description).toBe(`a${control}\u007f"\\\u00e9 \ud83d\ude00 \ufffd z`);
    expect(project.version).toBe("1.0\u0000\u001b");
    expect(project.dependencies).toEqual([`numpy>=1.24; python_version >= "3.9"\u007f`]);
    expect(scripts).toEqual({ "stats\n": "stats.cli:main" });
  });
});
