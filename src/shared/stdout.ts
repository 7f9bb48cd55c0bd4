// The program's stdout: whole writes to fd 1, made at once, so a command that only prints never creates
// process.stdout (making it loads Node's stream modules, a large part of a one-shot command's time). A
// closed pipe (`memvoy sessions | head -1`) ends the process quietly with exit 0, as git and rg do.
import { readFileSync, writeSync } from "node:fs";
import { errorMessage, namedError } from "./errors.ts";

/**
 * stdout refused a write (a full disk, /dev/full, a failing device). It names the output, not the home: what the
 * command did before it printed (an add, a record) is done, so it must not read as "nothing was changed".
 */
export const OutputWriteError = namedError<{ reason: string }>(
  "OutputWriteError",
  "runtime",
  (d) => `could not write the output to stdout (${d.reason})`,
);

let stream: NodeJS.WriteStream | undefined;
let closed = false;
let checked = false;
let onFailed: ((reason: string) => void) | undefined;

/**
 * A server's own handling of a stdout that fails (its client closed the pipe, or a write is refused), called once
 * instead of ending quietly with exit 0 or throwing: the requests it read and has not answered must not be dropped
 * without a word. Later writes are dropped.
 */
export function onStdoutFailed(handler: (reason: string) => void): void {
  onFailed = handler;
}

/**
 * Refuse a stdout that was closed when memvoy started (`memvoy sessions >&-`): the runtime then opens /dev/null
 * as fd 1, close-on-exec, which no stdout a process inherits can be, so the output would vanish with exit 0.
 * Read from /proc (Linux); elsewhere such a stdout is not told from /dev/null.
 */
export function refuseClosedStdout(): void {
  if (checked) return;
  checked = true;
  let flags: string | undefined;
  try {
    flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync("/proc/self/fdinfo/1", "utf8"))?.[1];
  } catch {
    return;
  }
  if (flags !== undefined && (Number.parseInt(flags, 8) & 0o2000000) !== 0)
    throw new OutputWriteError({ reason: "EBADF: stdout is closed" });
}

function endQuietly(): void {
  if (closed) return;
  closed = true;
  // As a stream's error event would: the synchronous work under way finishes, then the process ends.
  process.nextTick(() => process.exit(0));
}

/** process.stdout, for code that needs the stream itself (the MCP transport, the TUI); writeOut follows it. */
export function stdoutStream(): NodeJS.WriteStream {
  if (!stream) {
    stream = process.stdout;
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (onFailed) {
        if (closed) return;
        closed = true;
        return onFailed(err?.code === "EPIPE" ? "EPIPE: the reader closed it" : errorMessage(err));
      }
      if (err?.code === "EPIPE") return endQuietly();
      // A terminal closed under memvoy (a hangup): no one reads it any more, and the SIGHUP that comes with it
      // ends the program its own way (the TUI finishes a deletion the user confirmed first).
      if (err?.code === "EIO") {
        closed = true;
        return;
      }
      throw err;
    });
  }
  return stream;
}

/** Whether stdout is a terminal (without making process.stdout when it does not exist yet). */
export function stdoutIsTTY(): boolean {
  if (stream) return stream.isTTY === true;
  return (require("node:tty") as typeof import("node:tty")).isatty(1);
}

/**
 * Write text to stdout. It is written before this returns, unless fd 1 would block (a non-blocking pipe
 * that is full): then it and every later write go through process.stdout, in order.
 */
export function writeOut(text: string): void {
  if (closed || text.length === 0) return;
  refuseClosedStdout();
  if (stream) {
    stream.write(text);
    return;
  }
  let bytes: Buffer | undefined;
  let at = 0;
  try {
    // The text itself is written (as UTF-8): the usual single write makes no Buffer, which costs a fresh
    // process more than the write. A short write goes on from the byte where it stopped.
    at = writeSync(1, text);
    if (at < Buffer.byteLength(text)) {
      bytes = Buffer.from(text);
      while (at < bytes.length) at += writeSync(1, bytes, at);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EPIPE") return endQuietly();
    if (code !== "EAGAIN") throw new OutputWriteError({ reason: errorMessage(err) });
    stdoutStream().write((bytes ?? Buffer.from(text)).subarray(at));
  }
}

/**
 * Write a long stream (an export) chunk by chunk: each write waits while the pipe is full, so memory stays
 * bounded, and a closed pipe ends the process quietly, as writeOut does.
 */
export async function streamOut<T>(items: AsyncIterable<T> | Iterable<T>, render: (item: T) => string): Promise<void> {
  const sink = Bun.stdout.writer();
  for await (const item of items) {
    if (closed) return;
    const text = render(item);
    refuseClosedStdout();
    try {
      await sink.write(text);
      await sink.flush();
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === "EPIPE") return endQuietly();
      throw new OutputWriteError({ reason: errorMessage(err) });
    }
  }
}
