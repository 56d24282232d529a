import { describe, expect, it } from "vitest";
import { CapturedOutput, stripTerminalControls } from "../../src/sandbox/captured-output.js";

describe("CapturedOutput", () => {
  it("returns short output unchanged", () => {
    const output = new CapturedOutput(10, 10);
    output.append("abc");
    output.append("def\n");
    expect(output.toString()).toBe("abcdef\n");
  });

  it("keeps the head and the tail of long output and says how much was cut", () => {
    const output = new CapturedOutput(5, 5);
    for (const chunk of ["HEAD-", "x".repeat(1000), "y".repeat(37), "-TAIL"]) output.append(chunk);
    expect(output.toString()).toBe("HEAD-\n[... 1037 characters of output cut here ...]\n-TAIL");
  });

  it("keeps the tail right however the chunks fall", () => {
    const output = new CapturedOutput(2, 4);
    for (const char of "0123456789abcdef") output.append(char);
    expect(output.toString()).toBe("01\n[... 10 characters of output cut here ...]\ncdef");
  });
});

describe("stripTerminalControls", () => {
  it("removes colours, cursor movement, window titles and stray control characters but keeps text layout", () => {
    const text = "\x1b[31mFAILED\x1b[0m test\x1b[2K\x1b]0;owned\x07\tdone\r\n\x07bell\x1bc";
    expect(stripTerminalControls(text)).toBe("FAILED test\tdone\r\nbell");
  });
});
