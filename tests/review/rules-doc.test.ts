import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { REVIEW_SCRIPT } from "../../src/review/review-script.js";
import { REVIEW_RULES } from "../../src/review/rules.js";

const RULE_IDS = Object.keys(REVIEW_RULES).sort();

describe("docs/review-rules.md", () => {
  let headings: string[];

  beforeAll(async () => {
    const markdown = await readFile(new URL("../../docs/review-rules.md", import.meta.url), "utf8");
    headings = [...markdown.matchAll(/^### (\S+)\s*$/gm)].map((m) => m[1]!).filter((h) => /^[a-z]+(-[a-z]+)*$/.test(h));
  });

  it("has a `### rule-id` entry for every review rule", () => {
    expect(RULE_IDS.filter((id) => !headings.includes(id))).toEqual([]);
  });

  it("has no entry for a rule that does not exist, and each rule once", () => {
    expect(headings.filter((id) => !RULE_IDS.includes(id))).toEqual([]);
    expect(headings.length).toBe(new Set(headings).size);
  });
});

describe("src/review/rules.ts", () => {
  it("lists every rule id the checker script can report", () => {
    const quoted = [...REVIEW_SCRIPT.matchAll(/"([a-z]+(?:-[a-z]+)+)"/g)].map((m) => m[1]!);
    expect(quoted.length).toBeGreaterThan(10);
    expect([...new Set(quoted)].filter((id) => !RULE_IDS.includes(id))).toEqual([]);
  });
});
