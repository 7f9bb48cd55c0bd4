// Stored text made safe to show in a terminal: no escape sequence or control character of it reaches the
// terminal (an agent's or a tool's output often holds colour codes; a hostile one could set the title or the
// clipboard, or overwrite what is shown with a carriage return). The CLI and the TUI show text through these.

// CSI and OSC sequences, then any other ESC-prefixed pair.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]?/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Multi-line text: escapes removed, CRLF and CR as newlines, other controls but tab dropped. */
export function terminalText(text: string): string {
  return text.replace(ESCAPES, "").replace(/\r\n?/g, "\n").replace(CONTROLS, "");
}

/** terminalText with tabs as four spaces, for text laid out by the TUI. */
export function displayText(text: string): string {
  return terminalText(text).replace(/\t/g, "    ");
}

/** One line of terminalText: a name or a label (newlines and tabs as spaces). */
export function lineText(text: string): string {
  return terminalText(text).replace(/[\n\t]/g, " ");
}

/** One-line text with the same length (offsets stay valid): every control character becomes a space. */
export function inlineText(text: string): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, " ");
}
