// Bracketed paste: the terminal wraps pasted text in ESC[200~ … ESC[201~, and the text is taken out of the input
// before blessed reads it as keys (a pasted q quit, a pasted d asked to delete); the screen emits it as "paste".
import type blessed from "blessed";

export const PASTE_ON = "\x1b[?2004h";
export const PASTE_OFF = "\x1b[?2004l";
const START = Buffer.from("\x1b[200~");
const END = Buffer.from("\x1b[201~");
/** A paste whose end marker never comes (a terminal that lost it) ends after this long without input. */
export const PASTE_IDLE_MS = 500;

export type InputPart = { keys: Buffer } | { paste: string };

/** Splits reads into keys and pastes; a paste may span reads (a long one arrives in several). */
export class PasteSplitter {
  private parts: Buffer[] | undefined;
  /** The last bytes of the paste so far: an end marker may be cut between two reads. */
  private tail = Buffer.alloc(0);

  get pasting(): boolean {
    return this.parts !== undefined;
  }

  feed(chunk: Buffer): InputPart[] {
    const out: InputPart[] = [];
    let rest = chunk;
    while (rest.length > 0) {
      if (this.parts === undefined) {
        const at = rest.indexOf(START);
        if (at < 0) {
          out.push({ keys: rest });
          break;
        }
        if (at > 0) out.push({ keys: rest.subarray(0, at) });
        this.parts = [];
        this.tail = Buffer.alloc(0);
        rest = rest.subarray(at + START.length);
        continue;
      }
      const joined = Buffer.concat([this.tail, rest]);
      const end = joined.indexOf(END);
      if (end < 0) {
        this.parts.push(rest);
        this.tail = joined.subarray(Math.max(0, joined.length - (END.length - 1)));
        break;
      }
      // The end marker began `tail.length - end` bytes back, in what was already kept.
      const kept = Buffer.concat(this.parts);
      const text = Buffer.concat([kept.subarray(0, kept.length - this.tail.length), joined.subarray(0, end)]);
      out.push({ paste: text.toString("utf8") });
      this.parts = undefined;
      rest = joined.subarray(end + END.length);
    }
    return out;
  }

  /** End an unfinished paste: what arrived of it. */
  flush(): string | undefined {
    if (this.parts === undefined) return undefined;
    const text = Buffer.concat(this.parts).toString("utf8");
    this.parts = undefined;
    return text;
  }
}

/**
 * Turn bracketed paste on for as long as the screen is entered (the pager and the shell get the terminal without
 * it), and make `input` hand pastes to the screen's "paste" event instead of emitting them as data.
 */
export function bracketPastes(screen: blessed.Widgets.Screen, input: NodeJS.ReadStream): void {
  const s = screen as unknown as {
    enter(): void;
    leave(): void;
    program: { isAlt?: boolean; _write(t: string): void };
  };
  const enter = s.enter.bind(s);
  const leave = s.leave.bind(s);
  s.enter = () => {
    const entering = !s.program.isAlt;
    enter();
    if (entering) s.program._write(PASTE_ON);
  };
  s.leave = () => {
    if (s.program.isAlt) s.program._write(PASTE_OFF); // leave() flushes it
    leave();
  };
  if (s.program.isAlt) s.program._write(PASTE_ON);

  const splitter = new PasteSplitter();
  let idle: ReturnType<typeof setTimeout> | undefined;
  const emit = input.emit.bind(input) as (event: string | symbol, ...args: unknown[]) => boolean;
  input.emit = ((event: string | symbol, ...args: unknown[]) => {
    const chunk = args[0];
    if (event !== "data" || !(chunk instanceof Uint8Array)) return emit(event, ...args);
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!splitter.pasting && !bytes.includes(START)) return emit(event, ...args);
    clearTimeout(idle);
    for (const part of splitter.feed(bytes))
      if ("keys" in part) emit(event, part.keys);
      else screen.emit("paste", part.paste);
    if (splitter.pasting)
      idle = setTimeout(() => {
        const text = splitter.flush();
        if (text !== undefined) screen.emit("paste", text);
      }, PASTE_IDLE_MS);
    return true;
  }) as typeof input.emit;
}
