// Reading source files safely: JSONL from a byte offset in chunks (a partial last line waits for the next
// pass), a named limit on one line, .zst files decompressed as they are read, a leading BOM dropped.
import { describeError } from "../shared/describe-error.ts";
import { namedError } from "../shared/errors.ts";
import { closeSync, createReadStream, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { createZstdDecompress } from "node:zlib";
import { streamLines as linesOf, withoutBom, type Line } from "../shared/stream-lines.ts";
import { endsInsideFrame, TruncatedFileError } from "./zstd-frames.ts";

export { TruncatedFileError };

export const MAX_LINE_BYTES = 256 * 1024 * 1024;
const CHUNK = 4 * 1024 * 1024;

const MiB = 1024 * 1024;

/** A named size limit refused the input (a line, a whole file, a zip and its entries); sizes in bytes. */
export const LimitError = namedError<
  | { problem: "line"; file: string; line: number; limit: number }
  | { problem: "file"; file: string; size: number; limit: number }
  | { problem: "zip-entries"; file: string; count: number; limit: number }
  | { problem: "zip-entry"; file: string; entry: string; inflated: boolean; limit: number }
>("LimitError", "input", (d) => {
  switch (d.problem) {
    case "line":
      return `${d.file}:${d.line}: a line is over the ${d.limit / MiB} MiB line limit`;
    case "file":
      return `${d.file}: ${Math.round(d.size / MiB)} MiB is over the ${Math.round(d.limit / MiB)} MiB limit for one file of this kind`;
    case "zip-entries":
      return `${d.file}: ${d.count} entries is over the limit of ${d.limit}`;
    case "zip-entry":
      return `${d.file}: ${d.entry} ${d.inflated ? "inflates past" : "is over"} the ${d.limit / MiB} MiB limit for one zip entry`;
  }
});
export type LimitError = InstanceType<typeof LimitError>;

/** A .zst file zstd cannot read; `reason` is its own words. */
export const CorruptCompressedFileError = namedError<{ file: string; reason: string }>(
  "CorruptCompressedFileError",
  "input",
  (d) => `${d.file}: not a valid zstd file (${d.reason})`,
);
export type CorruptCompressedFileError = InstanceType<typeof CorruptCompressedFileError>;

export type { Line };

const decoder = new TextDecoder("utf-8");

/**
 * Complete lines from `offset` on (each ends with "\n"); a trailing line without one is left for the next pass
 * unless `final` (a file that is complete). `firstLine` numbers the first line. A .zst file is read by zstLines.
 */
export function* jsonlLines(
  file: string,
  offset = 0,
  firstLine = 1,
  final = false,
  /** Told the bytes read so far after each chunk (progress through a large file). */
  onRead?: (bytes: number) => void,
): Generator<Line> {
  const fd = openSync(file, "r");
  let lent: Buffer | undefined;
  try {
    let pos = offset;
    let line = firstLine;
    let lineStart = offset;
    let atStart = offset === 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const size = fstatSync(fd).size;
    lent = spare.pop() ?? Buffer.allocUnsafe(CHUNK);
    const buf = lent.subarray(0, Math.max(1, Math.min(CHUNK, size - offset + 1)));
    // Uint8Array.prototype.indexOf is much faster than Buffer's on this runtime.
    const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      let start = 0;
      for (;;) {
        const nl = bytes.indexOf(10, start);
        if (nl < 0 || nl >= n) break;
        let text: string;
        if (pendingBytes > 0) {
          text = Buffer.concat([...pending, buf.subarray(start, nl)]).toString("utf8");
          pending = [];
          pendingBytes = 0;
        } else text = buf.toString("utf8", start, nl);
        if (atStart) {
          atStart = false;
          text = withoutBom(text);
        }
        yield { line: line++, text, start: lineStart, end: pos + nl + 1 };
        lineStart = pos + nl + 1;
        start = nl + 1;
      }
      if (start < n) {
        pendingBytes += n - start;
        if (pendingBytes > MAX_LINE_BYTES) throw new LimitError({ problem: "line", file, line, limit: MAX_LINE_BYTES });
        pending.push(Buffer.from(buf.subarray(start, n)));
      }
      pos += n;
      onRead?.(pos);
    }
    if (final && pendingBytes > 0) {
      const text = Buffer.concat(pending).toString("utf8");
      yield { line, text: atStart ? withoutBom(text) : text, start: lineStart, end: pos };
    }
  } finally {
    closeSync(fd);
    if (lent && spare.length < 4) spare.push(lent);
  }
}

/** The complete line starting at byte `offset` (numbered `line`), the file closed again; undefined when there is none. */
export function lineAt(file: string, offset: number, line: number): Line | undefined {
  // Returning from the loop ends the generator, whose finally closes the file: a bare next() would leave it open.
  for (const l of jsonlLines(file, offset, line)) return l;
  return undefined;
}

/** Whether the file's bytes before `end` hold `needle` (read in chunks, none held whole). */
export function holdsBefore(file: string, end: number, needle: string): boolean {
  const want = Buffer.from(needle, "utf8");
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(CHUNK + want.length);
    let pos = 0;
    let kept = 0;
    while (pos < end) {
      const n = readSync(fd, buf, kept, Math.min(CHUNK, end - pos), pos);
      if (n === 0) break;
      if (buf.subarray(0, kept + n).includes(want)) return true;
      pos += n;
      // The last bytes are kept, so a needle across two chunks is found.
      const tail = Math.min(want.length - 1, kept + n);
      buf.copy(buf, 0, kept + n - tail, kept + n);
      kept = tail;
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Read buffers are reused: fresh memory for every file costs more (page faults) than reading it. */
const spare: Buffer[] = [];

/** Lines of a stream (stdin), each with its number; the last line may lack its newline unless `partialLast` is false. */
export function streamLines(stream: AsyncIterable<Uint8Array>, name: string, partialLast = true): AsyncGenerator<Line> {
  return linesOf(stream, {
    maxLineBytes: MAX_LINE_BYTES,
    tooLong: (line) => new LimitError({ problem: "line", file: name, line, limit: MAX_LINE_BYTES }),
    partialLast,
  });
}

/** The lines of a file, a .zst one decompressed as it is read; the last line may lack its newline. */
export const wholeLines = (
  file: string,
  onCut?: (err: TruncatedFileError) => void,
  onRead?: (bytes: number) => void,
): Iterable<Line> | AsyncIterable<Line> =>
  file.endsWith(".zst") ? zstLines(file, onCut, onRead) : jsonlLines(file, 0, 1, true, onRead);

/**
 * The lines of a .zst file, decompressed as they are read: memory holds one line (up to the line limit) whatever the
 * file's decompressed size. The last line may lack its newline. A file that ends inside a zstd frame gives its
 * complete lines (as a plain file's partial last line waits), then a TruncatedFileError: thrown, or handed to `onCut`.
 */
export async function* zstLines(
  file: string,
  onCut?: (err: TruncatedFileError) => void,
  /** Told the compressed bytes read so far (progress through a large file). */
  onRead?: (bytes: number) => void,
): AsyncGenerator<Line> {
  // Opened first, so a file gone or unreadable fails as a plain one does; what fails after is zstd's.
  const fd = openSync(file, "r");
  const input = createReadStream(file, { fd });
  const zstd = createZstdDecompress({ chunkSize: 256 * 1024 });
  input.on("error", (err) => zstd.destroy(err));
  if (onRead) input.on("data", () => onRead(input.bytesRead));
  const cut = endsInsideFrame(file) ? new TruncatedFileError({ file, size: fstatSync(fd).size }) : undefined;
  try {
    try {
      yield* streamLines(input.pipe(zstd), file, cut === undefined);
    } catch (err) {
      if (err instanceof LimitError || cut === undefined) throw err;
    }
    if (cut && onCut) onCut(cut);
    else if (cut) throw cut;
  } catch (err) {
    if (err instanceof LimitError || err instanceof TruncatedFileError) throw err;
    throw new CorruptCompressedFileError({ file, reason: describeError(err) }, { cause: err });
  } finally {
    input.destroy();
    zstd.destroy();
  }
}

/** A whole (small) file as text, refused over `limit` bytes; a leading byte order mark is dropped. */
export function readTextLimited(file: string, limit: number, size: number): string {
  if (size > limit) throw new LimitError({ problem: "file", file, size, limit });
  return decoder.decode(readFileSync(file));
}

/** UTF-8 bytes as text, without a leading byte order mark. */
export const textOf = (bytes: Uint8Array): string => decoder.decode(bytes);

/** A small file as text (a JSON record), without a leading byte order mark. */
export const readText = (file: string): string => textOf(readFileSync(file));

/** JSON.parse that answers undefined instead of throwing. */
export function tryJson(
  text: string,
  reviver?: (key: string, val: unknown, ctx?: { source?: string }) => unknown,
): unknown {
  try {
    return JSON.parse(text, reviver);
  } catch {
    return undefined;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
