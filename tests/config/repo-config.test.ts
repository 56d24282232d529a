import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_CONFIG_PATH,
  REPO_CONFIG_KEYS,
  describeConfigProblem,
  parseRepoConfig,
  readRepoConfig,
  type RepoConfigRead,
} from "../../src/config/repo-config.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

const DEFAULTS = {
  rpg: ["rpg.json"],
  label: "generate",
  command: "/rpg",
  workflow: "rpg-generate.yml",
  permission: "write",
  push: "generate",
};

/** A checkout holding `.github/rpg-forge.yml` with this text. */
function checkout(yaml: string): string {
  const dir = tempDir();
  mkdirSync(join(dir, ".github"));
  writeFileSync(join(dir, DEFAULT_CONFIG_PATH), yaml);
  return dir;
}

function problemsOf(read: RepoConfigRead) {
  if (read.ok) throw new Error(`expected problems, got ${JSON.stringify(read.config)}`);
  return read.problems;
}

const lines = (read: RepoConfigRead) => problemsOf(read).map(describeConfigProblem);

describe("readRepoConfig: the Action's checkout", () => {
  it("gives the defaults when the repository has no .github/rpg-forge.yml", async () => {
    await expect(readRepoConfig(tempDir())).resolves.toEqual({ ok: true, config: DEFAULTS, found: false, warnings: [] });
  });

  it("gives the defaults for a file that is empty or only comments", async () => {
    for (const text of ["", "# rpg-forge: all defaults\n", "---\n"]) {
      await expect(readRepoConfig(checkout(text))).resolves.toEqual({ ok: true, config: DEFAULTS, found: true, warnings: [] });
    }
  });

  it("reads every key", async () => {
    const read = await readRepoConfig(
      checkout(
        [
          "rpg:",
          "  - graphs/stats.json",
          "  - graphs/report.json",
          "label: rpg-generate",
          "command: /forge",
          "workflow: forge.yaml",
          "permission: maintain",
          "push: nothing",
          "model: gpt-4.1",
          "max-iterations: 12",
          "concurrency: 4",
          "fix-tools: true",
          "base-branch: develop",
        ].join("\n"),
      ),
    );
    expect(read).toEqual({
      ok: true,
      found: true,
      warnings: [],
      config: {
        rpg: ["graphs/stats.json", "graphs/report.json"],
        label: "rpg-generate",
        command: "/forge",
        workflow: "forge.yaml",
        permission: "maintain",
        push: "nothing",
        model: "gpt-4.1",
        "max-iterations": 12,
        concurrency: 4,
        "fix-tools": true,
        "base-branch": "develop",
      },
    });
  });

  it("keeps the defaults of the keys a file leaves out", async () => {
    const read = await readRepoConfig(checkout("label: please-generate\nconcurrency: 2\n"));
    expect(read).toMatchObject({ ok: true, config: { ...DEFAULTS, label: "please-generate", concurrency: 2 } });
  });

  it("names an unknown key, suggesting the setting it was meant to be, on its line", async () => {
    const read = await readRepoConfig(checkout("label: generate\nmodle: gpt-4.1\nretries: 3\n"));
    expect(problemsOf(read)).toEqual([
      { key: "modle", message: "unknown setting; did you mean model?", file: ".github/rpg-forge.yml", line: 2 },
      {
        key: "retries",
        message:
          "unknown setting (the settings are rpg, label, command, workflow, permission, push, model, max-iterations, diagnosis-votes, mutants, integration-tests, fix-tools, review, concurrency, base-branch)",
        file: ".github/rpg-forge.yml",
        line: 3,
      },
    ]);
  });

  it("names fix-tools given anything but true or false", async () => {
    const read = await readRepoConfig(checkout("fix-tools: sometimes\n"));
    expect(lines(read)).toEqual(['fix-tools: must be true or false (got "sometimes")']);
  });

  it("names the key of a value of the wrong type, with what it got", async () => {
    const read = await readRepoConfig(checkout("model: gpt-4.1\nmax-iterations: many\n"));
    expect(lines(read)).toEqual(['max-iterations: must be a whole number from 1 to 50 (got "many")']);
    expect(problemsOf(read)[0]).toMatchObject({ file: ".github/rpg-forge.yml", line: 2 });
  });

  it("names each value out of its range or set, every problem at once, in the file's order", async () => {
    const read = await readRepoConfig(
      checkout(
        [
          "concurrency: 17",
          "max-iterations: 0",
          "permission: read",
          "push: always",
          "rpg: rpg.json",
          "workflow: .github/workflows/rpg.yml",
          "command: /rpg please",
          "label: ''",
          "base-branch: 2.5",
        ].join("\n"),
      ),
    );
    expect(lines(read)).toEqual([
      "concurrency: must be a whole number from 1 to 16 (got 17)",
      "max-iterations: must be a whole number from 1 to 50 (got 0)",
      'permission: must be one of "write", "maintain", "admin" (got "read")',
      'push: must be one of "generate", "nothing" (got "always")',
      'rpg: must be a list of RPG paths, like [rpg.json] (got "rpg.json")',
      'workflow: must be a workflow file name in .github/workflows, like rpg-generate.yml (got ".github/workflows/rpg.yml")',
      'command: must be a command prefix without spaces, like "/rpg" (got "/rpg please")',
      'label: must be an issue label (got "")',
      "base-branch: must be a branch name (got 2.5)",
    ]);
    expect(problemsOf(read).map((p) => p.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("names the entry of the rpg list that leaves the repository, and refuses an empty list", async () => {
    expect(lines(await readRepoConfig(checkout("rpg: [rpg.json, ../elsewhere/rpg.json, /etc/rpg.json]\n")))).toEqual([
      'rpg[1]: must be a path inside the repository, like rpg.json (got "../elsewhere/rpg.json")',
      'rpg[2]: must be a path inside the repository, like rpg.json (got "/etc/rpg.json")',
    ]);
    expect(lines(await readRepoConfig(checkout("rpg: []\n")))).toEqual(["rpg: must be a list of at least one RPG path (got a list)"]);
  });

  it("names a whole number that is not whole, and a key left without a value", async () => {
    expect(lines(await readRepoConfig(checkout("max-iterations: 2.5\nmodel:\n")))).toEqual([
      "max-iterations: must be a whole number from 1 to 50 (got 2.5)",
      "model: must be a model name (got nothing)",
    ]);
  });

  it("reports YAML that does not parse with the file, line and column", async () => {
    const read = await readRepoConfig(checkout("label: generate\nrpg: [rpg.json\nmodel: gpt-4.1\n"));
    const [problem, ...rest] = problemsOf(read);
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ key: "", file: ".github/rpg-forge.yml", line: 3, column: 1 });
    expect(describeConfigProblem(problem!)).toMatch(/^\.github\/rpg-forge\.yml line 3, column 1: not valid YAML: /);
  });

  it("reports a duplicated key as YAML that does not parse, on the second one's line", async () => {
    const [problem] = problemsOf(await readRepoConfig(checkout("label: a\nmodel: m\nlabel: b\n")));
    expect(problem).toMatchObject({ key: "", line: 3, message: "not valid YAML: duplicated mapping key" });
  });

  it("refuses a file that is not a mapping, or holds several documents", async () => {
    expect(lines(await readRepoConfig(checkout("- rpg.json\n")))).toEqual([
      '.github/rpg-forge.yml: must be a mapping of settings, like "label: generate" (got a list)',
    ]);
    expect(lines(await readRepoConfig(checkout("label: a\n---\nlabel: b\n")))).toEqual([
      ".github/rpg-forge.yml: holds 2 YAML documents (separated by ---); it must hold one",
    ]);
  });

  it("does not follow a symbolic link, as the App reading through the API does not", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, "elsewhere.yml"), "label: generate\n");
    symlinkSync(join(dir, "elsewhere.yml"), join(dir, DEFAULT_CONFIG_PATH));
    expect(lines(await readRepoConfig(dir))).toEqual([".github/rpg-forge.yml: is a symbolic link; rpg-forge reads only a regular file"]);
  });

  it("reports a file it cannot read instead of throwing", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, DEFAULT_CONFIG_PATH), { recursive: true });
    expect(lines(await readRepoConfig(dir))).toEqual([expect.stringMatching(/^\.github\/rpg-forge\.yml: cannot be read: /)]);
  });

  it("uses the file's own settings under _extends, which only the App can follow, and warns on its line", async () => {
    const read = await readRepoConfig(checkout("_extends: octo/.github\nlabel: forge\n"));
    expect(read).toEqual({
      ok: true,
      found: true,
      config: { ...DEFAULTS, label: "forge" },
      warnings: [
        { key: "_extends", file: ".github/rpg-forge.yml", line: 1, message: expect.stringContaining("the Action reads only this file") },
      ],
    });
  });
});

describe("parseRepoConfig: what Probot's context.config hands the App", () => {
  it("gives the defaults when there is no file (null)", () => {
    expect(parseRepoConfig(null, DEFAULT_CONFIG_PATH)).toEqual({ ok: true, config: DEFAULTS });
  });

  it("checks an object parsed elsewhere the same way, and names the file it came from", () => {
    expect(parseRepoConfig({ permission: "admin", push: "nothing" }, "x.yml")).toEqual({
      ok: true,
      config: { ...DEFAULTS, permission: "admin", push: "nothing" },
    });
    const parsed = parseRepoConfig({ "max-iterations": "many", lable: "x" }, "octo/.github:.github/rpg-forge.yml");
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: "lable", message: "unknown setting; did you mean label?", file: "octo/.github:.github/rpg-forge.yml" },
      { key: "max-iterations", message: 'must be a whole number from 1 to 50 (got "many")', file: "octo/.github:.github/rpg-forge.yml" },
    ]);
  });

  it("reports anything but a mapping of settings, never throwing", () => {
    for (const data of ["label: generate", 42, true, [], { rpg: { a: 1 } }, { label: ["a"] }, { rpg: [null] }]) {
      const parsed = parseRepoConfig(data, DEFAULT_CONFIG_PATH);
      expect(parsed.ok, JSON.stringify(data)).toBe(false);
      expect(parsed.ok ? [] : parsed.problems, JSON.stringify(data)).not.toEqual([]);
    }
  });
});

describe("docs/configuration.md", () => {
  const doc = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");

  it("documents every key", () => {
    for (const key of REPO_CONFIG_KEYS) expect(doc, key).toMatch(new RegExp(`^\\| \`${key}\` +\\|`, "m"));
  });

  it("has an example that is a valid configuration", async () => {
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const read = await readRepoConfig(checkout(example!));
    expect(read.ok ? read.warnings : read.problems).toEqual([]);
  });
});
