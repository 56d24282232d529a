import { describe, expect, it } from "vitest";
import { COMMENT_LIMIT, fitToLimit } from "../../src/report/fit-limit.js";
import { expectBalanced } from "./markdown-structure.js";

describe("fitToLimit", () => {
  it("leaves text within the limit unchanged", () => {
    expect(fitToLimit("short\n", 10)).toBe("short\n");
    expect(COMMENT_LIMIT).toBe(65_536);
  });

  it("cuts the longest section first", () => {
    const doc = ["# t", "", "```", "small", "```", "", "```", "y".repeat(100_000), "```", ""].join("\n");
    const fitted = fitToLimit(doc, 20_000);
    expect(fitted.length).toBeLessThanOrEqual(20_000);
    expect(fitted).toContain("```\nsmall\n```");
    expect(fitted).toMatch(/\[\.\.\. [\d,]+ characters cut \.\.\.\]/);
    const shown = Number(/truncated: ([\d,]+)/.exec(fitted)![1]!.replace(/,/g, ""));
    expect(shown).toBeGreaterThanOrEqual(doc.length - 20_000);
    expect(shown).toBeLessThan(100_000);
  });

  it("stays within any limit and balanced for generated hostile documents", () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const bits = ["a", "b ", "\n", "`", "``", "```", "````", "\n```\n", "\n~~~\n", "</details>", "<details>", "😀", "E   Error", "|", "<"];
    const content = (size: number): string => {
      let out = "";
      while (out.length < size) out += pick(bits);
      return out;
    };
    const fence = (body: string, info: string): string => {
      const longest = (body.match(/`+/g) ?? []).reduce((m, r) => Math.max(m, r.length), 0);
      const ticks = "`".repeat(Math.max(3, longest + 1));
      return `${ticks}${info}\n${body}\n${ticks}`;
    };
    for (let round = 0; round < 12; round++) {
      const parts: string[] = [];
      const sections = 1 + Math.floor(random() * 8);
      for (let s = 0; s < sections; s++) {
        const size = pick([10, 500, 20_000, 200_000]);
        const block = fence(content(size), pick(["", "text", "python"]));
        parts.push(`p ${content(50).replace(/[\n<`~]/g, ".")}`);
        parts.push(random() < 0.7 ? ["<details><summary>s</summary>", "", block, "", "</details>"].join("\n") : block);
        if (random() < 0.3)
          parts.push(
            ["<details><summary>list</summary>", "", ...Array.from({ length: 2000 }, (_, i) => `- item ${i}`), "", "</details>"].join("\n"),
          );
      }
      const doc = parts.join("\n\n");
      expectBalanced(doc);
      for (const limit of [300, 4000, COMMENT_LIMIT]) {
        const fitted = fitToLimit(doc, limit);
        expect(fitted.length).toBeLessThanOrEqual(limit);
        expectBalanced(fitted);
      }
    }
  });

  it("fits a document whose size is all in one line outside any section", () => {
    const fitted = fitToLimit(`<details><summary>x</summary>\n\n${"z".repeat(200_000)}\n\n</details>\n${"w".repeat(100_000)}\n`, 1000);
    expect(fitted.length).toBeLessThanOrEqual(1000);
    expectBalanced(fitted);
  });

  it("closes a fence the input left open", () => {
    const fitted = fitToLimit(`intro\n\`\`\`\n${"q\n".repeat(5000)}`, 500);
    expect(fitted.length).toBeLessThanOrEqual(500);
    expectBalanced(fitted);
  });
});
