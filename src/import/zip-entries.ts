// A small zip reader for ChatGPT exports: the central directory, stored or deflated entries, and named
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
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (count > MAX_ENTRIES) throw new LimitError({ problem: "zip-entries", file, count, limit: MAX_ENTRIES });
    const cd = readAt(fd, cdOffset, cdSize);
    const out: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count && p + 46 <= cd.length; i++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new NotAZipError({ problem: "central-directory", file });
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      out.push({
        method: cd.readUInt16LE(p + 10),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localOffset: cd.readUInt32LE(p + 42),
        name: cd.subarray(p + 46, p + 46 + nameLen).toString("utf8"),
      });
      p += 46 + nameLen + extraLen + commentLen;
    }
    return out;
  } finally {
    closeSync(fd);
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
