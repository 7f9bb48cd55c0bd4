// Keys typed while the process was busy arrive in one read. blessed drops Esc followed by a control key
// in one chunk (Esc then Ctrl-E: neither is seen), Esc followed by a printable key that is no letter or
// digit (Esc then / or ?), and the Esc before an arrow, page or Home/End key (Esc then Down: only Down is
// seen); it drops every key of a chunk that holds a mouse report (the pointer moved while typing) and reads
// only its first report. Such chunks are split before blessed reads them.
const ESC = 0x1b;

/** Bytes that begin or end a sequence after an Esc: CSI (arrows, mouse, paste), OSC, ST, APC, PM. */
const SEQUENCE_BYTES = new Set([..."[]\\_^"].map((c) => c.charCodeAt(0)));

/** After an Esc, the bytes that make it an arrow, page, Home/End or function key (CSI and SS3). */
const KEY_SEQUENCE = new Set([..."[O"].map((c) => c.charCodeAt(0)));

/**
 * Whether blessed would swallow this byte with the Esc before it: a control byte, or a key that is neither a
 * letter or digit (a Meta chord, split by the TUI), a space, Backspace nor the start of a sequence.
 */
function swallowed(b: number): boolean {
  if (b === ESC) return false;
  if (b < 0x20 || b >= 0x80) return true;
  const c = String.fromCharCode(b);
  return !/[A-Za-z0-9 \x7f]/.test(c) && !SEQUENCE_BYTES.has(b);
}

/** The chunk cut before every byte that blessed would swallow with the Esc before it. */
export function splitEscapeChords(chunk: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 1; i < chunk.length; i++) {
    const b = chunk[i]!;
    if (chunk[i - 1] === ESC && (swallowed(b) || (b === ESC && KEY_SEQUENCE.has(chunk[i + 1]!)))) {
      parts.push(chunk.subarray(start, i));
      start = i;
    }
  }
  if (start === 0) return [chunk];
  parts.push(chunk.subarray(start));
  return parts;
}

/**
 * Mouse reports as blessed reads them (X10 with UTF-8 coordinates, SGR, urxvt, DEC, vt300) and focus reports,
 * over the chunk's bytes as latin1 characters.
 */
const MOUSE_REPORT =
  /\x1b\[M(?:[\xc2-\xdf][\x80-\xbf]|[\s\S]){3}|\x1b\[<\d+;\d+;\d+(?:[Mm]|;\d+&w)|\x1b\[\d+;\d+;\d+M|\x1b\[24[0135]~\[\d+,\d+\]\r|\x1b\[[IO]/g;

/** The chunk cut around each mouse report: every report alone, the keys between them apart. */
export function splitMouseReports(chunk: Uint8Array): Uint8Array[] {
  if (!chunk.includes(ESC)) return [chunk];
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1");
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const m of text.matchAll(MOUSE_REPORT)) {
    if (m.index > start) parts.push(chunk.subarray(start, m.index));
    parts.push(chunk.subarray(m.index, m.index + m[0].length));
    start = m.index + m[0].length;
  }
  if (start === 0) return [chunk];
  if (start < chunk.length) parts.push(chunk.subarray(start));
  return parts;
}

/** Make `input` emit such chunks as separate reads. */
export function separateEscapeChords(input: NodeJS.ReadStream): void {
  const emit = input.emit.bind(input) as (event: string | symbol, ...args: unknown[]) => boolean;
  input.emit = ((event: string | symbol, ...args: unknown[]) => {
    const chunk = args[0];
    if (event !== "data" || !(chunk instanceof Uint8Array)) return emit(event, ...args);
    const parts = splitMouseReports(chunk).flatMap(splitEscapeChords);
    if (parts.length === 1) return emit(event, ...args);
    for (const p of parts) emit(event, Buffer.from(p));
    return true;
  }) as typeof input.emit;
}
