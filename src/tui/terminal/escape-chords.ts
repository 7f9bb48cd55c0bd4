// Keys typed while the process was busy arrive in one read. blessed drops Esc followed by a control key
// in one chunk (Esc then Ctrl-E: neither is seen), so such chunks are split before blessed reads them.
const ESC = 0x1b;

/** The chunk cut before every control byte that follows an Esc (escape sequences start with a printable byte). */
export function splitEscapeChords(chunk: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 1; i < chunk.length; i++) {
    const b = chunk[i]!;
    if (chunk[i - 1] === ESC && b < 0x20 && b !== ESC) {
      parts.push(chunk.subarray(start, i));
      start = i;
    }
  }
  if (start === 0) return [chunk];
  parts.push(chunk.subarray(start));
  return parts;
}

/** Make `input` emit such chunks as separate reads. */
export function separateEscapeChords(input: NodeJS.ReadStream): void {
  const emit = input.emit.bind(input) as (event: string | symbol, ...args: unknown[]) => boolean;
  input.emit = ((event: string | symbol, ...args: unknown[]) => {
    const chunk = args[0];
    if (event !== "data" || !(chunk instanceof Uint8Array)) return emit(event, ...args);
    const parts = splitEscapeChords(chunk);
    if (parts.length === 1) return emit(event, ...args);
    for (const p of parts) emit(event, Buffer.from(p));
    return true;
  }) as typeof input.emit;
}
