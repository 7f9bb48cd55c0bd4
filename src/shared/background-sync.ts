// A file's data written to disk in the background while the writer does other work, waited for later. On
// Linux, sync_file_range(SYNC_FILE_RANGE_WRITE) (through bun:ffi) queues the writeback without waiting; the
// fdatasync at the wait then only waits for that I/O and commits the metadata, on the writer's own thread.
// (An fdatasync on another thread, POSIX AIO, was slower: two cross-thread wake-ups on the critical path.)
// Elsewhere the whole fdatasync runs at the wait.
import { fdatasyncSync } from "node:fs";

const SYNC_FILE_RANGE_WRITE = 2;

let writeback: ((fd: number) => void) | null | undefined;

function load(): ((fd: number) => void) | null {
  if (process.platform !== "linux") return null;
  const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
  try {
    const l = dlopen("libc.so.6", {
      sync_file_range: { args: [FFIType.i32, FFIType.i64, FFIType.i64, FFIType.u32], returns: FFIType.i32 },
    });
    return (fd) => void l.symbols.sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  } catch {
    return null; // not glibc: the fdatasync does it all
  }
}

/** Start writing what fd holds so far back to disk, without waiting (nothing where that is not available). */
export function startWriteback(fd: number): void {
  writeback ??= load();
  writeback?.(fd);
}

/**
 * Start writing fd's data to disk and return the function that waits until it is durable (an fdatasync: it
 * throws what fdatasync throws). The fd must stay open until then. A failure to start the writeback is not
 * reported here: the fdatasync reports the file's write errors.
 */
export function startDataSync(fd: number): () => void {
  startWriteback(fd);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fdatasyncSync(fd);
  };
}
