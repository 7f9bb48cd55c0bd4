// Stored text made safe to show in a terminal: no escape sequence or control character of it reaches the
// terminal (an agent's or a tool's output often holds colour codes; a hostile one could set the title or the
// clipboard, or overwrite what is shown with a carriage return). The CLI and the TUI show text through these.

// CSI and OSC sequences, then any other ESC-prefixed pair.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]?/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// Invisible format characters terminals and width tables disagree on, each a cell of drift in a laid-out row:
// the bidi embeddings, overrides and isolates (an override also makes text read other than it is stored), the
// Arabic letter mark, the Mongolian vowel separator, invisible operators, a byte order mark inside text, the
// interlinear annotation marks. Zero-width space, joiners and the LRM/RLM marks stay: every table agrees on them.
const FORMATS = /[\u061c\u180e\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;
// Unicode's line and paragraph separators: line breaks, which terminals draw as nothing.
const SEPARATORS = /[\u2028\u2029]/g;

/** Escapes removed, CRLF and CR as newlines, other controls but tab dropped (format characters kept). */
export function withoutEscapes(text: string): string {
  return text.replace(ESCAPES, "").replace(/\r\n?/g, "\n").replace(CONTROLS, "");
}

/** Multi-line text: withoutEscapes, and the format characters above dropped, the Unicode separators as newlines. */
export function terminalText(text: string): string {
  return withoutEscapes(text).replace(FORMATS, "").replace(SEPARATORS, "\n");
}

/** terminalText with tabs as four spaces, for text laid out by the TUI. */
export function displayText(text: string): string {
  return terminalText(text).replace(/\t/g, "    ");
}

/** One line of terminalText: a name or a label (newlines and tabs as spaces). */
export function lineText(text: string): string {
  return terminalText(text).replace(/[\n\t]/g, " ");
}

/** One-line text with the same length (offsets stay valid): every control or format character becomes a space. */
export function inlineText(text: string): string {
  return text
    .replace(/[\x00-\x1f\x7f-\x9f]/g, " ")
    .replace(FORMATS, " ")
    .replace(SEPARATORS, " ");
}

/**
 * inlineText with escape sequences removed (a coloured tool output's "[31m" bodies are not shown), `ranges`
 * (offsets into `text`, such as a snippet's highlights) moved to match the text returned.
 */
export function inlineTextKeeping(
  text: string,
  ranges: readonly (readonly [number, number])[],
): { text: string; ranges: [number, number][] } {
  if (!text.includes("\x1b")) return { text: inlineText(text), ranges: ranges.map(([s, e]) => [s, e]) };
  const at = new Int32Array(text.length + 1);
  let out = "";
  let last = 0;
  for (const m of text.matchAll(ESCAPES)) {
    for (let i = last; i < m.index; i++) at[i] = out.length + i - last;
    out += text.slice(last, m.index);
    at.fill(out.length, m.index, m.index + m[0].length);
    last = m.index + m[0].length;
  }
  for (let i = last; i <= text.length; i++) at[i] = out.length + i - last;
  out += text.slice(last);
  const moved = ranges.map(([s, e]) => [at[s]!, at[e]!] as [number, number]).filter(([s, e]) => e > s);
  return { text: inlineText(out), ranges: moved };
}
