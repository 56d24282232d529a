import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { RUN_ERROR_CODES } from "../../src/errors.js";
import { RPG_ISSUE_CODES } from "../../src/rpg/issues.js";

const ALL_CODES = [...Object.keys(RPG_ISSUE_CODES), ...Object.keys(RUN_ERROR_CODES)].sort();

/** `### CODE` heading -> the text up to the next heading. */
function entriesOf(markdown: string): Map<string, string> {
  const entries = new Map<string, string>();
  const parts = markdown.split(/^(?=#{1,6} )/m);
  for (const part of parts) {
    const heading = /^### (\S+)\s*$/m.exec(part.split("\n", 1)[0] ?? "");
    if (heading) entries.set(heading[1]!, part);
  }
  return entries;
}

describe("docs/errors.md", () => {
  let markdown: string;
  let entries: Map<string, string>;

  beforeAll(async () => {
    markdown = await readFile(new URL("../../docs/errors.md", import.meta.url), "utf8");
    entries = entriesOf(markdown);
  });

  it("has a `### CODE` entry for every RPG issue code and run error code", () => {
    expect(ALL_CODES.filter((code) => !entries.has(code))).toEqual([]);
  });

  it("has no entry for a code that does not exist", () => {
    expect([...entries.keys()].filter((code) => !ALL_CODES.includes(code))).toEqual([]);
  });

  it("has each code once", () => {
    const headings = markdown.match(/^### \S+\s*$/gm) ?? [];
    expect(headings.length).toBe(entries.size);
  });

  it("shows for every code an example of the line the CLI prints", () => {
    // `CODE node field: ...`, or `CODE: ...` for a problem about no node and no field.
    const line = (code: string): RegExp => new RegExp(`^(warning: )?${code}( \\S+ \\S+)?: `, "m");
    const withoutExample = ALL_CODES.filter((code) => !line(code).test(entries.get(code) ?? ""));
    expect(withoutExample).toEqual([]);
  });
});
