// While the TUI owns the terminal, console.* and anything written to fd 2 (including native libraries'
// own stderr logging) go to a log file instead of the screen. restore() puts everything back.
import { dlopen, FFIType } from "bun:ffi";
import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { devNull } from "node:os";
import { openAppendNoFollow } from "../../shared/no-follow.ts";
import { redactSecrets, secretValues } from "../../shared/redact.ts";
import { format } from "node:util";

const METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;
const MAX_LOG_BYTES = 1024 * 1024;

type Libc = { dup: (fd: number) => number; dup2: (from: number, to: number) => number };
let libc: Libc | undefined;

function lib(): Libc | undefined {
  if (libc) return libc;
  try {
    const l = dlopen(process.platform === "darwin" ? "libc.dylib" : "libc.so.6", {
      dup: { args: [FFIType.i32], returns: FFIType.i32 },
      dup2: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    });
    libc = { dup: (fd) => l.symbols.dup(fd) as number, dup2: (a, b) => l.symbols.dup2(a, b) as number };
  } catch {
    libc = undefined;
  }
  return libc;
}

export interface LogRedirect {
  readonly file: string;
  restore(): void;
}

export function redirectLogs(file: string): LogRedirect {
  // Never through a symbolic link (HomeLinkRefusedError): the log would be appended to, or emptied, elsewhere.
  // The last resort of a home not made yet is the null device, which openAppendNoFollow refuses as no regular file.
  const fd = file === devNull ? openSync(devNull, "a") : openAppendNoFollow(file);
  if (fstatSync(fd).size > MAX_LOG_BYTES) ftruncateSync(fd, 0);
  // A crash's stack quotes its error's message, which may quote a key or a URL's password: redacted, as every log is.
  const keys = secretValues();
  const redact = (text: string) => redactSecrets(text, keys).text;
  const write = (text: string) => {
    try {
      writeSync(fd, `${new Date().toISOString()} ${redact(text)}\n`);
    } catch {
      // a full disk must not break the screen
    }
  };
  const saved = METHODS.map((m) => [m, console[m]] as const);
  for (const m of METHODS) console[m] = (...args: unknown[]) => write(format(...args));
  // Bun's process.stderr keeps its own duplicate of fd 2 from its first use, so dup2 does not move it:
  // touch it now (on the real terminal) and divert its writes by hand until restore().
  const stderr = process.stderr;
  const stderrWrite = stderr.write;
  stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    try {
      if (typeof chunk === "string") writeSync(fd, redact(chunk));
      else writeSync(fd, chunk);
    } catch {
      // as above
    }
    const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof stderr.write;

  const c = lib();
  const savedStderr = c ? c.dup(2) : -1;
  if (c && savedStderr >= 0) c.dup2(fd, 2);

  let done = false;
  return {
    file,
    restore() {
      if (done) return;
      done = true;
      if (c && savedStderr >= 0) {
        c.dup2(savedStderr, 2);
        closeSync(savedStderr);
      }
      for (const [m, fn] of saved) console[m] = fn as never;
      stderr.write = stderrWrite;
      closeSync(fd);
    },
  };
}
