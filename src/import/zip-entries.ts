// A small zip reader for ChatGPT exports: the central directory (zip64 too), stored or deflated entries, and named
// limits on entry count and uncompressed size (a zip bomb is refused, never inflated).
import { describeError } from "../shared/describe-error.ts";
import { namedError } from "../shared/errors.ts";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { LimitError } from "./read-lines.ts";

export const MAX_ENTRY_BYTES = 1024 * 1024 * 1024;
export const MAX_ENTRIES = 100_000;

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** Not a zip file, or a damaged or unsupported one; `entry` names the entry at fault. */
export const NotAZipError = namedError<
  | { problem: "not-zip" | "central-directory"; file: string }
  | { problem: "entry"; file: string; entry: string }
  | { problem: "method"; file: string; entry: string; method: number }
  | { problem: "corrupt"; file: string; entry: string; reason: string }
>("NotAZipError", "input", (d) => {
  switch (d.problem) {
    case "not-zip":
      return `${d.file}: not a zip file`;
    case "central-directory":
      return `${d.file}: corrupt zip central directory`;
    case "entry":
      return `${d.file}: corrupt zip entry ${d.entry}`;
    case "method":
      return `${d.file}: ${d.entry} uses an unsupported compression method (${d.method})`;
    case "corrupt":
      return `${d.file}: ${d.entry} is corrupt (${d.reason})`;
  }
});
export type NotAZipError = InstanceType<typeof NotAZipError>;

function readAt(fd: number, pos: number, len: number): Buffer {
  const buf = Buffer.alloc(len);
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, got, len - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export function zipEntries(file: string): ZipEntry[] {
  const size = statSync(file).size;
  const fd = openSync(file, "r");
  try {
    const tailLen = Math.min(size, 65_557);
    const tail = readAt(fd, size - tailLen, tailLen);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--)
      if (tail.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    if (eocd < 0) throw new NotAZipError({ problem: "not-zip", file });
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    // A zip64 archive (over 4 GiB or 65,535 entries, as a large export is) keeps the true values in its zip64 record.
    if (count === 0xffff || cdSize === MAX32 || cdOffset === MAX32) {
      const locator = eocd - 20;
      if (locator < 0 || tail.readUInt32LE(locator) !== 0x07064b50)
        throw new NotAZipError({ problem: "central-directory", file });
      const record = readAt(fd, u64(tail, locator + 8), 56);
      if (record.length < 56 || record.readUInt32LE(0) !== 0x06064b50)
        throw new NotAZipError({ problem: "central-directory", file });
      count = u64(record, 32);
      cdSize = u64(record, 40);
      cdOffset = u64(record, 48);
    }
    if (count > MAX_ENTRIES) throw new LimitError({ problem: "zip-entries", file, count, limit: MAX_ENTRIES });
    const cd = readAt(fd, cdOffset, cdSize);
    const out: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count && p + 46 <= cd.length; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new NotAZipError({ problem: "central-directory", file });
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const entry: ZipEntry = {
        method: cd.readUInt16LE(p + 10),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localOffset: cd.readUInt32LE(p + 42),
        name: cd.subarray(p + 46, p + 46 + nameLen).toString("utf8"),
      };
      withZip64Extra(entry, cd.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen));
      out.push(entry);
      p += 46 + nameLen + extraLen + commentLen;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

const MAX32 = 0xffffffff;

/** An unsigned 64-bit little-endian field as a number (exact up to 2^53, far past any file here). */
const u64 = (b: Buffer, at: number) => Number(b.readBigUInt64LE(at));

/** The zip64 extra field (id 1) holds, in this order, each of size, compressed size and offset that is 0xFFFFFFFF. */
function withZip64Extra(e: ZipEntry, extra: Buffer): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const len = extra.readUInt16LE(at + 2);
    if (id === 1) {
      let q = at + 4;
      const end = Math.min(at + 4 + len, extra.length);
      const next = () => (q + 8 <= end ? u64(extra, (q += 8) - 8) : undefined);
      if (e.size === MAX32) e.size = next() ?? e.size;
      if (e.compressedSize === MAX32) e.compressedSize = next() ?? e.compressedSize;
      if (e.localOffset === MAX32) e.localOffset = next() ?? e.localOffset;
      return;
    }
    at += 4 + len;
  }
}

/** One entry's bytes; its declared and its real uncompressed size are both held to MAX_ENTRY_BYTES. */
export function readZipEntry(file: string, e: ZipEntry): Buffer {
  if (e.size > MAX_ENTRY_BYTES)
    throw new LimitError({ problem: "zip-entry", file, entry: e.name, inflated: false, limit: MAX_ENTRY_BYTES });
  const fd = openSync(file, "r");
  try {
    const head = readAt(fd, e.localOffset, 30);
    if (head.length < 30 || head.readUInt32LE(0) !== 0x04034b50)
      throw new NotAZipError({ problem: "entry", file, entry: e.name });
    const start = e.localOffset + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
    const data = readAt(fd, start, e.compressedSize);
    if (e.method === 0) return data;
    if (e.method !== 8) throw new NotAZipError({ problem: "method", file, entry: e.name, method: e.method });
    try {
      return inflateRawSync(data, { maxOutputLength: MAX_ENTRY_BYTES });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
        throw new LimitError({ problem: "zip-entry", file, entry: e.name, inflated: true, limit: MAX_ENTRY_BYTES });
      throw new NotAZipError({ problem: "corrupt", file, entry: e.name, reason: describeError(err) }, { cause: err });
    }
  } finally {
    closeSync(fd);
  }
}
