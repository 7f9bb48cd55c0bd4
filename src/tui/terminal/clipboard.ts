// Copy through OSC 52: the terminal (or tmux with set-clipboard on, or one at the end of an ssh link)
// puts the text on the clipboard; nothing is needed on the machine memvoy runs on.

/** Terminals drop longer OSC 52 payloads (xterm's default limit is about 100 kB of base64). */
export const OSC52_MAX_BYTES = 74_994;

/** The OSC 52 sequence setting the clipboard to `text`, or undefined when it is too long to send. */
export function osc52(text: string): string | undefined {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > OSC52_MAX_BYTES) return undefined;
  return `\x1b]52;c;${Buffer.from(bytes).toString("base64")}\x07`;
}
