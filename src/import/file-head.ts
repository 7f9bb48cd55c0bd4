// A file's identity for incremental reads: a hash of its first bytes. When the bytes read last time are no
// longer the file's start, it was replaced or rewritten and is read again from 0 (ids keep that safe).
import { closeSync, openSync, readSync } from "node:fs";

const HEAD_BYTES = 4096;

export function fileHead(file: string, length = HEAD_BYTES): string {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(length);
    const n = readSync(fd, buf, 0, length, 0);
    return `${n}:${new Bun.CryptoHasher("sha256").update(buf.subarray(0, n)).digest("hex").slice(0, 32)}`;
  } finally {
    closeSync(fd);
  }
}

/** Whether the file still starts with the bytes recorded in `head`. */
export function sameHead(file: string, head: string): boolean {
  const n = Number(head.split(":")[0]);
  if (!Number.isInteger(n) || n <= 0) return false;
  return fileHead(file, n) === head;
}
