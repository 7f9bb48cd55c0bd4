// Cross-process exclusive lock on a file with flock(2) through bun:ffi. The kernel releases it when the
// holder dies (kill -9 included), so a crash never leaves a stale lock. Reentrant within one process.
import { closeSync } from "node:fs";
import { namedError } from "./errors.ts";
import { openAppendNoFollow } from "./no-follow.ts";

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
/** flock's "held by another" errno: EWOULDBLOCK, 35 on macOS. */
const EWOULDBLOCK = process.platform === "darwin" ? 35 : 11;

export const LockTimeoutError = namedError<{ path: string; timeoutMs: number }>(
  "LockTimeoutError",
  "runtime",
  (d) => `timed out after ${d.timeoutMs} ms waiting for the write lock ${d.path}`,
);
export type LockTimeoutError = InstanceType<typeof LockTimeoutError>;

/** flock failed for a reason other than another holder (the errno says which). */
export const LockFailedError = namedError<{ path: string; errno: number }>(
  "LockFailedError",
  "runtime",
  (d) => `cannot lock ${d.path} (errno ${d.errno})`,
);
export type LockFailedError = InstanceType<typeof LockFailedError>;

let libc: { flock: (fd: number, op: number) => number; errno: () => number } | undefined;
function lib() {
  if (!libc) {
    // Loaded on the first lock: commands that take none (search) never load bun:ffi.
    const { dlopen, FFIType, read } = require("bun:ffi") as typeof import("bun:ffi");
    const darwin = process.platform === "darwin";
    // The address of this thread's errno: glibc's __errno_location, macOS's __error.
    const errnoAt = darwin ? "__error" : "__errno_location";
    const l = dlopen(darwin ? "libc.dylib" : "libc.so.6", {
      flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      [errnoAt]: { args: [], returns: FFIType.ptr },
    });
    libc = {
      flock: (fd, op) => l.symbols.flock(fd, op) as number,
      errno: () => read.i32((l.symbols[errnoAt] as () => number | null)()!, 0),
    };
  }
  return libc;
}

interface Held {
  fd: number;
  depth: number;
}
const held = new Map<string, Held>();

/** Try to take the lock without waiting; returns a release function, or undefined when another holds it. */
export function tryLockFile(path: string): (() => void) | undefined {
  const fd = openAppendNoFollow(path);
  if (lib().flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    closeSync(fd);
    return undefined;
  }
  return () => {
    lib().flock(fd, LOCK_UN);
    closeSync(fd);
  };
}

/** Whether another process holds the lock on `path` now (never waits; false when no lock file can be made here). */
export function lockHeldElsewhere(path: string): boolean {
  if (held.has(path)) return false;
  let release: (() => void) | undefined;
  try {
    release = tryLockFile(path);
  } catch {
    return false;
  }
  release?.();
  return release === undefined;
}

/**
 * Wait without blocking this thread until no other process holds the lock on `path`, or `timeoutMs` passed: a
 * server (the daemon, an MCP server) calls it before a write, whose synchronous wait would freeze every request
 * it serves meanwhile. The write then takes the lock itself (and waits in the rare case another got it first).
 */
export function lockFree(path: string, timeoutMs = 30_000): Promise<void> {
  if (held.has(path)) return Promise.resolve();
  // This process's waiters go in the order they came (each looks once the one before it went on to its write):
  // polling alike, they would go in whatever order their timers fired, so writes asked for in order (an MCP
  // client's calls, read one after another) were stored out of it, and the first to wait could be the last to go.
  const deadline = performance.now() + timeoutMs;
  const before = waiting.get(path) ?? Promise.resolve();
  const mine = before.then(() => pollFree(path, deadline));
  waiting.set(path, mine);
  void mine.finally(() => {
    if (waiting.get(path) === mine) waiting.delete(path);
  });
  return mine;
}

/** The last of this process's waiters on each lock path (lockFree). */
const waiting = new Map<string, Promise<void>>();

async function pollFree(path: string, deadline: number): Promise<void> {
  for (let wait = 1; performance.now() < deadline; wait = Math.min(wait * 2, 50)) {
    let release: (() => void) | undefined;
    try {
      release = tryLockFile(path);
    } catch {
      return; // no lock file can be made here (no store yet): the write says what is wrong
    }
    if (release) return release();
    await Bun.sleep(wait);
  }
}

/**
 * Called with the lock file's descriptor right after the lock is taken, and right before it is released
 * after `fn` returned (not when it threw: the next holder then sees what `acquired` left in the file).
 */
export interface LockHooks {
  acquired?(fd: number): void;
  releasing?(fd: number): void;
}

/** Run fn holding an exclusive lock on `path`, waiting up to timeoutMs for other processes. */
export function withFileLock<T>(path: string, fn: () => T, timeoutMs = 30_000, hooks: LockHooks = {}): T {
  const mine = held.get(path);
  if (mine) {
    mine.depth++;
    try {
      return fn();
    } finally {
      mine.depth--;
    }
  }
  const fd = openAppendNoFollow(path);
  const deadline = performance.now() + timeoutMs;
  let wait = 0.2;
  while (lib().flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = lib().errno();
    if (errno !== EWOULDBLOCK) {
      closeSync(fd);
      throw new LockFailedError({ path, errno });
    }
    if (performance.now() > deadline) {
      closeSync(fd);
      throw new LockTimeoutError({ path, timeoutMs });
    }
    Bun.sleepSync(wait);
    wait = Math.min(wait * 2, 10);
  }
  held.set(path, { fd, depth: 1 });
  try {
    hooks.acquired?.(fd);
    const out = fn();
    hooks.releasing?.(fd);
    return out;
  } finally {
    held.delete(path);
    lib().flock(fd, LOCK_UN);
    closeSync(fd);
  }
}
