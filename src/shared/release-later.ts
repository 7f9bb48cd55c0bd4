// Freeing a replaced file off the writer's thread. A rename over a file whose last name it held frees that
// file's blocks inside the rename (ext4: ~0.25 ms a MiB). Held open across the rename, the old file outlives
// it unnamed, and its descriptor is closed on another thread, where the freeing happens. The kernel frees it
// too if the process exits first (nothing is left behind under any name).
// The closing thread is a worker at the lowest CPU priority: woken, it never preempts the writer (a pool
// thread of the runtime, woken by an async close, often does, which costs the writer ~0.05 ms). A process's
// first releases go through the pool, and the worker is started at the second, so a command that writes
// once never starts it.
import { close, constants, openSync } from "node:fs";

// O_NONBLOCK: opening a FIFO planted at the path must not wait for a writer (no effect on a regular file).
const HOLD_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A descriptor on the file at `path` (never through a symbolic link); undefined when there is none to hold. */
export function holdFile(path: string): number | undefined {
  try {
    return openSync(path, HOLD_FLAGS);
  } catch {
    return undefined; // missing, a link, unreadable: the rename frees it as usual
  }
}

// The queue shared with the worker: [ready, head, tail, fd slots...]; head and tail count forever.
const READY = 0;
const HEAD = 1;
const TAIL = 2;
const SLOTS = 32;

const WORKER_SOURCE = `
const { closeSync } = require("node:fs");
self.onmessage = (e) => {
  const q = new Int32Array(e.data);
  if (process.platform === "linux") {
    try {
      const { dlopen, FFIType } = require("bun:ffi");
      const libc = dlopen("libc.so.6", {
        setpriority: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      });
      libc.symbols.setpriority(0, 0, 19); // on Linux a nice value is per thread: who 0 is this one
    } catch {}
  }
  Atomics.store(q, ${READY}, 1);
  let head = Atomics.load(q, ${HEAD});
  for (;;) {
    const tail = Atomics.load(q, ${TAIL});
    if (head === tail) {
      Atomics.wait(q, ${TAIL}, tail);
      continue;
    }
    try {
      closeSync(q[3 + (head % ${SLOTS})]);
    } catch {}
    head++;
    Atomics.store(q, ${HEAD}, head);
  }
};
`;

let queue: Int32Array | undefined;
let released = 0;
/** Closes handed to the runtime's pool and not finished yet. */
let inPool = 0;

function startWorker(): void {
  queue = new Int32Array(new SharedArrayBuffer(4 * (3 + SLOTS)));
  try {
    const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
    const worker = new Worker(url);
    worker.unref();
    worker.postMessage(queue.buffer);
  } catch {
    // no worker: every release goes through the pool
  }
}

/** Close `fd` (a file replaced since it was held) on another thread; the caller goes on at once. */
export function releaseLater(fd: number): void {
  const q = queue;
  if (q && Atomics.load(q, READY) === 1) {
    const tail = Atomics.load(q, TAIL);
    if (tail - Atomics.load(q, HEAD) < SLOTS) {
      q[3 + (tail % SLOTS)] = fd;
      Atomics.store(q, TAIL, tail + 1);
      Atomics.notify(q, TAIL);
      return;
    }
  }
  inPool++;
  close(fd, () => inPool--); // a failed close leaves nothing to do
  if (!q && ++released === 2) startWorker();
}

/** Releases handed off and not done yet (a benchmark waits for them, so that what it times next is not charged for them). */
export function pendingReleases(): number {
  return inPool + (queue ? Atomics.load(queue, TAIL) - Atomics.load(queue, HEAD) : 0);
}
