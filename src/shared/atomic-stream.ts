// An atomic file written in pieces: a temp file beside the target, synced, renamed over it on commit.
import { closeSync, fdatasyncSync, lstatSync, openSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { FILE_MODE, writeAll } from "./atomic-write.ts";
import { namedError } from "./errors.ts";
import { removeStaleTempFiles } from "./stale-temp-files.ts";

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
  const st = statSync(path, { throwIfNoEntry: false });
  // A pipe, a FIFO or a device (/dev/stdout, >(cmd)) cannot be replaced, only written: renaming a file over it
  // would leave the reader with nothing (and, run as root, put a plain file in place of /dev/stdout).
  // So is a name for one of this process's streams (/dev/stdout, /dev/fd/N), even when it is a file opened for append.
  if (st && ((!st.isFile() && !st.isDirectory()) || /^\/(?:dev|proc)\//.test(resolve(path)))) return openDirect(path);
  // A link to a file keeps being a link: the file it names is replaced.
  const target = st?.isFile() && lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
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
    writeAll(fd, [buf]);
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
        renameSync(tmp, target);
        // Earlier writes of it whose process died (killed mid-write) left hidden partial copies beside it.
        removeStaleTempFiles(dirname(target), { of: basename(target) });
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

/** A stream written straight into a pipe, FIFO or device, as it comes (nothing to sync or rename). */
function openDirect(path: string): AtomicStream {
  // One of this process's own streams is written through its descriptor: a socket cannot be opened by name.
  const ownFd = fdOf(resolve(path));
  let fd: number;
  try {
    // Appended: a stream given as /dev/stdout may be a file the shell opened for append (>>).
    fd = ownFd ?? openSync(path, "a");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UnwritableOutputError({ path, reason: REASONS[e.code ?? ""] ?? e.message }, { cause: err });
  }
  let open = ownFd === undefined;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    write(text) {
      writeAll(fd, [Buffer.from(text, "utf8")]);
    },
    commit: close,
    discard: close,
  };
}

/** The descriptor a name of this process's own streams stands for (/dev/stdout, /dev/fd/N, /proc/self/fd/N). */
function fdOf(path: string): number | undefined {
  const std = ["/dev/stdin", "/dev/stdout", "/dev/stderr"].indexOf(path);
  if (std >= 0) return std;
  const m = new RegExp(`^/(?:dev/fd|proc/(?:self|${process.pid})/fd)/(\\d+)$`).exec(path);
  return m ? Number(m[1]) : undefined;
}
