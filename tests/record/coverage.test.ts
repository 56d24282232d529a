import { describe, expect, it } from "vitest";
import { CoverageSchema, percent } from "../../src/record/coverage.js";
import { countOnRanges } from "../../src/sandbox/coverage-analysis.js";

describe("CoverageSchema", () => {
  it("takes a figure whose counts fit, and refuses more covered than there is", () => {
    const figure = { lines: { covered: 3, total: 4 }, branches: { covered: 0, total: 0 } };
    expect(CoverageSchema.parse(figure)).toEqual(figure);
    expect(CoverageSchema.safeParse({ ...figure, lines: { covered: 5, total: 4 } }).success).toBe(false);
    expect(CoverageSchema.safeParse({ ...figure, branches: { covered: -1, total: 2 } }).success).toBe(false);
  });

  it("gives the share covered in percent, and none when there is nothing to cover", () => {
    expect(percent({ covered: 1, total: 2 })).toBe(50);
    expect(percent({ covered: 0, total: 0 })).toBeUndefined();
  });
});

describe("countOnRanges", () => {
  const analysis = {
    statements: [1, 2, 3, 5, 8, 9, 10, 11],
    missing: [3, 9, 10, 11],
    branches: [[2, 2, 1] as [number, number, number], [9, 2, 0] as [number, number, number]],
  };

  it("counts the statements and branch exits inside the ranges only", () => {
    expect(countOnRanges(analysis, [[1, 5]])).toEqual({ lines: { covered: 3, total: 4 }, branches: { covered: 1, total: 2 } });
    expect(countOnRanges(analysis, [[8, 11]])).toEqual({ lines: { covered: 1, total: 4 }, branches: { covered: 0, total: 2 } });
    expect(
      countOnRanges(analysis, [
        [3, 3],
        [9, 9],
      ]),
    ).toEqual({ lines: { covered: 0, total: 2 }, branches: { covered: 0, total: 2 } });
  });

  it("counts a line once when ranges overlap, and nothing outside every range", () => {
    expect(
      countOnRanges(analysis, [
        [1, 3],
        [2, 5],
      ]),
    ).toEqual(countOnRanges(analysis, [[1, 5]]));
    expect(countOnRanges(analysis, [[20, 30]])).toEqual({ lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 } });
  });
});
