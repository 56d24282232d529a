/**
 * Text for a terminal or a CI log that stays inert whatever it quotes. Node ids, docstrings, a model's
 * refusal and test output may carry escape sequences that recolour, move the cursor, retitle the
 * window or rewrite earlier lines (CR); none of them may reach the screen.
 */

// ESC followed by a CSI (ESC [ ... final byte), an OSC or other string (ESC ] ... BEL or ESC \),
// or a single character; and the 8-bit CSI (U+009B) with its parameters.
const ESCAPE_SEQUENCES =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[\s\S]?|\u009b[0-?]*[ -/]*[@-~]/g;
// eslint-disable-next-line no-control-regex
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** Escape sequences and control characters removed; newlines and tabs kept, for text of several lines. */
export function terminalText(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, "").replace(CONTROLS_BUT_LINES, "");
}

/** One line for a terminal: escape sequences removed, and every other control character (newline too) a space. */
export function terminalLine(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, "").replace(CONTROLS, " ");
}
