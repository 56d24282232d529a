/**
 * Keeps the first `headChars` and the last `tailChars` characters of a stream of text,
 * however much arrives: generated code may print in a loop, and what matters for a fix
 * is pytest's header and the summary at the end.
 */
export class CapturedOutput {
  private head = "";
  private tail: string[] = [];
  private tailLength = 0;
  private seen = 0;

  constructor(
    private readonly headChars = 40_000,
    private readonly tailChars = 60_000,
  ) {}

  append(text: string): void {
    this.seen += text.length;
    const room = this.headChars - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text === "") return;
    this.tail.push(text);
    this.tailLength += text.length;
    // Compact now and then rather than on every chunk, so appending stays cheap.
    if (this.tailLength > 2 * this.tailChars) this.compactTail();
  }

  /** The kept text with terminal control sequences removed, and a line saying how much was cut. */
  toString(): string {
    this.compactTail();
    const tail = this.tail.join("");
    const cut = this.seen - this.head.length - tail.length;
    const marker = cut > 0 ? `\n[... ${cut} characters of output cut here ...]\n` : "";
    return stripTerminalControls(this.head) + marker + stripTerminalControls(tail);
  }

  private compactTail(): void {
    const joined = this.tail.join("").slice(-this.tailChars);
    this.tail = joined === "" ? [] : [joined];
    this.tailLength = joined.length;
  }
}

/* eslint-disable no-control-regex -- matching control characters is the point */
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~])/g;
const OTHER_CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
/* eslint-enable no-control-regex */

/**
 * Removes colours and every other terminal control: the output is untrusted and ends up
 * in a terminal and in pull request comments, where escape sequences could rewrite what
 * the reader sees (move the cursor, set the window title, hide lines).
 */
export function stripTerminalControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "").replace(OTHER_CONTROLS, "");
}
