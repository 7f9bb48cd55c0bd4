// Make stored text safe to draw: no escape sequences or control characters reach the terminal.

// CSI and OSC sequences, then any other ESC-prefixed pair.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]?/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Multi-line display text: escapes removed, CRLF normalised, tabs expanded, other controls dropped. */
export function displayText(text: string): string {
  return text.replace(ESCAPES, "").replace(/\r\n?/g, "\n").replace(/\t/g, "    ").replace(CONTROLS, "");
}

/** One-line text with the same length (offsets stay valid): every control character becomes a space. */
export function inlineText(text: string): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, " ");
}
