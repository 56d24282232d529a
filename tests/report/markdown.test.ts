import { describe, expect, it } from "vitest";
import { code, count, fenced, prose, row } from "../../src/report/markdown.js";

describe("code", () => {
  it("wraps text in a span no backtick run inside it can close", () => {
    expect(code("a")).toBe("`a`");
    expect(code("specs/`odd`.json")).toBe("``specs/`odd`.json``");
    expect(code("a ``` b")).toBe("````a ``` b````");
  });

  it("pads text that starts or ends with a backtick, so the delimiter stays whole", () => {
    expect(code("`x`")).toBe("`` `x` ``");
    expect(code("x`")).toBe("`` x` ``");
  });

  it("keeps to one line, and shows empty text as a blank span", () => {
    expect(code("a\n  b\tc")).toBe("`a b c`");
    expect(code("")).toBe("` `");
    expect(code(" \n ")).toBe("` `");
  });
});

describe("fenced", () => {
  it("uses a fence longer than any backtick run in the content", () => {
    expect(fenced("x", "sh")).toBe("```sh\nx\n```");
    expect(fenced("a\n````\nb\n", "text")).toBe("`````text\na\n````\nb\n`````");
  });
});

describe("prose", () => {
  it("makes text one inert line: markup escaped, HTML as text, mentions broken", () => {
    expect(prose("add @property <details>\n*now*")).toBe("add @\u200bproperty &lt;details&gt; \\*now\\*");
    expect(prose("abcdef", 4)).toBe("abc…");
  });
});

describe("row", () => {
  it("keeps a pipe in a cell from splitting the row", () => {
    expect(row(["`a|b`", "c"])).toBe("| `a\\|b` | c |");
  });
});

describe("count", () => {
  it("groups a whole number's digits by thousands, as en-US writes it", () => {
    expect([0, 7, 999, 1000, 12_345, 1_234_567, -1234, -999, 2 ** 53 - 1].map(count)).toEqual([
      "0",
      "7",
      "999",
      "1,000",
      "12,345",
      "1,234,567",
      "-1,234",
      "-999",
      "9,007,199,254,740,991",
    ]);
    expect(count(2.5)).toBe("2.5");
  });
});
