// Whether the process that wrote a file may still be running: a zombie (dead, not yet reaped by its parent) is
// dead, and so is a pid taken by a process that started after the file was written (the pid reused).
import { existsSync, readFileSync } from "node:fs";

/** /proc/<pid>/stat's start time is in clock ticks since boot; USER_HZ is 100 on every Linux architecture memvoy runs on. */
const TICKS_PER_SEC = 100;
/** The boot time in /proc/stat has whole seconds, and the clock may be stepped: a start this far past the write is another process. */
const REUSE_MARGIN_MS = 10_000;

let procfs: boolean | undefined;
let bootMs: number | undefined;

function bootTimeMs(): number | undefined {
  if (bootMs === undefined) {
    const m = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    if (!m) return undefined;
    bootMs = Number(m[1]) * 1000;
  }
  return bootMs;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return undefined;
    throw err;
  }
}

/**
 * Whether `pid` may be the process that wrote a file last modified at `writtenMs` (ms since the epoch): false
 * for no such process, a zombie, or a process started after that write.
 */
export function writerMayBeAlive(pid: number, writtenMs: number): boolean {
  if (pid === process.pid) return true;
  procfs ??= existsSync("/proc/self/stat");
  if (!procfs) return signalable(pid);
  const fields = statFields(pid);
  if (!fields) return false;
  const state = fields[0];
  if (state === "Z" || state === "X" || state === "x") return false;
  const boot = bootTimeMs();
  const ticks = Number(fields[19]); // field 22 of the line: starttime
  if (boot === undefined || !Number.isFinite(ticks)) return true;
  return boot + (ticks * 1000) / TICKS_PER_SEC <= writtenMs + REUSE_MARGIN_MS;
}

/** Without /proc (macOS): kill(pid, 0), which cannot tell a zombie from a running process. */
function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
