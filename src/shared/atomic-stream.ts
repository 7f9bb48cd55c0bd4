// An atomic file written in pieces: a temp file beside the target, synced, renamed over it on commit.
import { closeSync, fdatasyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { FILE_MODE } from "./atomic-write.ts";
import { namedError } from "./errors.ts";

/** The target's folder does not take a new file (read-only, a pseudo file system, no permission). */
export const UnwritableOutputError = namedError<{ path: string; reason: string }>(
  "UnwritableOutputError",
  "input",
  (d) => `cannot write ${d.path}: ${d.reason}`,
);

export interface AtomicStream {
  write(text: string): void;
  /** Sync and rename into place. */
  commit(): void;
  /** Remove the temp file; the target is untouched. */
  discard(): void;
}

const REASONS: Record<string, string> = {
  ENOENT: "its folder does not take new files",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "read-only file system",
  ENOTDIR: "a part of the path is not a folder",
};

export function openAtomicStream(path: string): AtomicStream {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  let fd: number;
  try {
    fd = openSync(tmp, "w", FILE_MODE);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UnwritableOutputError({ path, reason: REASONS[e.code ?? ""] ?? e.message }, { cause: err });
  }
  let open = true;
  let pending: string[] = [];
  let pendingLen = 0;
  const drain = () => {
    if (pending.length === 0) return;
    const buf = Buffer.from(pending.join(""), "utf8");
    pending = [];
    pendingLen = 0;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
  };
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    write(text) {
      pending.push(text);
      pendingLen += text.length;
      if (pendingLen >= 1 << 20) drain();
    },
    commit() {
      try {
        drain();
        fdatasyncSync(fd);
        close();
        renameSync(tmp, path);
      } catch (err) {
        close();
        rmSync(tmp, { force: true });
        throw err;
      }
    },
    discard() {
      close();
      rmSync(tmp, { force: true });
    },
  };
}
