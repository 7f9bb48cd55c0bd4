// Lines of a byte stream (stdin) as they arrive, each with its number and byte offsets; the last may lack its
// newline. Only the line being read is held, and one longer than the limit is refused before its end is read.

export interface Line {
  /** 1-based line number within the file. */
  line: number;
  text: string;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just after this line's newline. */
  end: number;
}

export interface StreamLineOptions {
  maxLineBytes: number;
  /** The error for a line (numbered) past maxLineBytes, after `bytes` of it were read. */
  tooLong: (line: number, bytes: number) => Error;
  /** A line's bytes as text (default: UTF-8, invalid bytes replaced). */
  decode?: (bytes: Uint8Array) => string;
  /** false: a last line without its newline is not yielded (the stream was cut short). */
  partialLast?: boolean;
}

/** A first line without the UTF-8 byte order mark some editors write (JSON.parse refuses it). */
export const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

const utf8 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8");

export async function* streamLines(stream: AsyncIterable<Uint8Array>, o: StreamLineOptions): AsyncGenerator<Line> {
  const decode = o.decode ?? utf8;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let line = 1;
  let pos = 0;
  let lineStart = 0;
  const take = (tail: Uint8Array): string => {
    const text = decode(pending.length > 0 ? Buffer.concat([...pending, tail]) : tail);
    pending = [];
    pendingBytes = 0;
    return line === 1 ? withoutBom(text) : text;
  };
  for await (const chunk of stream) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const text = take(chunk.subarray(start, nl));
      yield { line: line++, text, start: lineStart, end: pos + nl + 1 };
      lineStart = pos + nl + 1;
      start = nl + 1;
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start;
      if (pendingBytes > o.maxLineBytes) throw o.tooLong(line, pendingBytes);
      pending.push(chunk.slice(start));
    }
    pos += chunk.length;
  }
  if (pendingBytes > 0 && o.partialLast !== false)
    yield { line, text: take(new Uint8Array(0)), start: lineStart, end: pos };
}
