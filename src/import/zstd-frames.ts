// Whether a .zst file holds its last zstd frame whole: the decoder returns what it has of a frame cut short (an
// interrupted copy or download) without an error, so the frame and block headers are walked to tell (RFC 8878).
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { namedError } from "../shared/errors.ts";

/** The .zst file ends inside a zstd frame: the lines after the cut are missing. */
export const TruncatedFileError = namedError<{ file: string; size: number }>(
  "TruncatedFileError",
  "input",
  (d) =>
    `${d.file}: truncated: the file (${d.size} bytes) ends inside a zstd frame, so its last lines are missing (an interrupted copy or download?)`,
);
export type TruncatedFileError = InstanceType<typeof TruncatedFileError>;

const FRAME = 0xfd2fb528;
const SKIPPABLE = 0x184d2a50;
const DICTIONARY_ID_BYTES = [0, 1, 2, 4];
const CONTENT_SIZE_BYTES = [0, 2, 4, 8];

/**
 * True when the file ends inside a frame (or holds no frame at all). Only headers are read: 3 bytes a block of up
 * to 128 KiB. Bytes that are not a frame are left to the decoder, which names what is wrong with them.
 */
export function endsInsideFrame(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(8);
    const read = (at: number, n: number) => readSync(fd, head, 0, n, at) === n;
    if (size === 0) return true;
    let pos = 0;
    while (pos < size) {
      if (!read(pos, 4)) return true;
      const magic = head.readUInt32LE(0);
      if ((magic & 0xfffffff0) === SKIPPABLE) {
        if (!read(pos + 4, 4)) return true;
        pos += 8 + head.readUInt32LE(0);
        continue;
      }
      if (magic !== FRAME) return false;
      if (!read(pos + 4, 1)) return true;
      const descriptor = head[0]!;
      const single = (descriptor >> 5) & 1;
      const checksum = (descriptor >> 2) & 1;
      const contentSize = descriptor >> 6 === 0 ? single : CONTENT_SIZE_BYTES[descriptor >> 6]!;
      pos += 5 + (single ? 0 : 1) + DICTIONARY_ID_BYTES[descriptor & 3]! + contentSize;
      for (let last = false; !last; ) {
        if (!read(pos, 3)) return true;
        const block = head[0]! | (head[1]! << 8) | (head[2]! << 16);
        const type = (block >> 1) & 3;
        if (type === 3) return false; // reserved: corrupt, not cut
        last = (block & 1) === 1;
        pos += 3 + (type === 1 ? 1 : block >>> 3);
        if (pos > size) return true;
      }
      pos += checksum ? 4 : 0;
    }
    return pos > size;
  } finally {
    closeSync(fd);
  }
}
