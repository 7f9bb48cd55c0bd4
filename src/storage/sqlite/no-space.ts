// A full disk as SQLite reports it: SQLITE_FULL, or "disk I/O error" when even its shared-memory file cannot
// be allocated (a few KiB free). Both become one NoSpaceError saying what failed and that nothing changed.
import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import { namedError, RuntimeFailure } from "../../shared/errors.ts";

/** SQLite ran out of disk during `what`; `free` is what statfs still reports (absent when it cannot tell), `dir` where. */
export const NoSpaceError = namedError<{ what: string; dir: string; free?: number }>("NoSpaceError", "runtime", (d) => {
  const left = d.free !== undefined ? `${formatFree(d.free)} free in ${d.dir}` : d.dir;
  return `no space left on the device (${left}): ${d.what} failed; nothing was changed`;
});
export type NoSpaceError = InstanceType<typeof NoSpaceError>;

/** Below this, an I/O error from SQLite is taken for a full disk. */
const LOW_SPACE_BYTES = 1024 * 1024;

export function freeBytes(path: string): number | undefined {
  try {
    const s = statfsSync(path);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return undefined;
  }
}

function formatFree(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.floor(n / 1024)} KiB`;
}

/** `err` as a NoSpaceError when it is SQLite running out of disk at `dbPath`; otherwise `err` itself. */
export function asNoSpace(err: unknown, dbPath: string, what: string): unknown {
  if (!(err instanceof Error) || err instanceof RuntimeFailure) return err;
  const code = String((err as { code?: unknown }).code ?? "");
  const full = code === "SQLITE_FULL" || /database or disk is full/i.test(err.message);
  const io = code.startsWith("SQLITE_IOERR") || /disk I\/O error/i.test(err.message);
  if (!full && !io) return err;
  const dir = dbPath === ":memory:" || dbPath === "" ? "." : dirname(dbPath);
  const free = freeBytes(dir);
  if (!full && (free === undefined || free >= LOW_SPACE_BYTES)) return err;
  return new NoSpaceError(free !== undefined ? { what, dir, free } : { what, dir }, { cause: err });
}
