// fdatasync on another thread (glibc's POSIX AIO through bun:ffi), so a writer can do other work while the
// disk flushes and wait for it later. Where that is not available (not Linux/glibc) the sync runs inline.
import { fdatasyncSync } from "node:fs";
import { constants } from "node:os";

const O_DSYNC = 0o10000;
const EINPROGRESS = 115;
const SIGEV_NONE = 1;
/** glibc's struct aiocb on 64-bit Linux: aio_fildes at 0, aio_sigevent.sigev_notify at 44, 168 bytes. */
const AIOCB_BYTES = 168;
const SIGEV_NOTIFY_AT = 44;

interface Aio {
  fsync(op: number, cb: Uint8Array): number;
  suspend(list: BigUint64Array): number;
  error(cb: Uint8Array): number;
  finish(cb: Uint8Array): void;
  address(cb: Uint8Array): bigint;
}

let aio: Aio | null | undefined;

function load(): Aio | null {
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) return null;
  const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
  for (const name of ["libc.so.6", "librt.so.1"]) {
    try {
      const l = dlopen(name, {
        aio_fsync: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
        aio_suspend: { args: [FFIType.ptr, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
        aio_error: { args: [FFIType.ptr], returns: FFIType.i32 },
        aio_return: { args: [FFIType.ptr], returns: FFIType.i64 },
      });
      const s = l.symbols;
      return {
        fsync: (op, cb) => s.aio_fsync(op, ptr(cb)) as number,
        suspend: (list) => s.aio_suspend(ptr(list), 1, null) as number,
        error: (cb) => s.aio_error(ptr(cb)) as number,
        finish: (cb) => void s.aio_return(ptr(cb)),
        address: (cb) => BigInt(ptr(cb)),
      };
    } catch {
      // not in this library: try the next
    }
  }
  return null;
}

function errnoError(errno: number): NodeJS.ErrnoException {
  const code = Object.entries(constants.errno).find(([, n]) => n === errno)?.[0] ?? `E${errno}`;
  return Object.assign(new Error(`${code}: fdatasync failed (errno ${errno})`), {
    code,
    errno: -errno,
    syscall: "fdatasync",
  });
}

/**
 * Start fdatasync(fd) and return the function that waits for it (it throws what fdatasync would). The fd
 * must stay open, and the function must be called (glibc writes the request's outcome into memory this process
 * holds until then). Falls back to a plain fdatasync when AIO is unavailable.
 */
export function startDataSync(fd: number): () => void {
  aio ??= load();
  const a = aio;
  const cb = new Uint8Array(AIOCB_BYTES);
  const view = new DataView(cb.buffer);
  view.setInt32(0, fd, true);
  view.setInt32(SIGEV_NOTIFY_AT, SIGEV_NONE, true);
  const queued = a ? a.fsync(O_DSYNC, cb) === 0 : false;
  if (!a || !queued) {
    fdatasyncSync(fd);
    return () => {};
  }
  const list = new BigUint64Array([a.address(cb)]);
  let done = false;
  return () => {
    if (done) return;
    let err = a.error(cb);
    // aio_suspend returns early on a signal (EINTR): ask again until the request is finished.
    while (err === EINPROGRESS) {
      a.suspend(list);
      err = a.error(cb);
    }
    a.finish(cb);
    done = true;
    if (err !== 0) throw errnoError(err);
  };
}
