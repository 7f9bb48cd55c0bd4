// What the last complete scan of sessions/ saw, kept in <home>/.store/sessions-scan.json for the next process:
// sessions/'s inode and mtime then, and how many session rows the archive had. A process that finds both
// the same knows every folder is in the archive without listing sessions/ (see discoverSessions).
import { closeSync, constants, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { FILE_MODE } from "../shared/atomic-write.ts";
import type { HomePaths } from "../config/home.ts";

const markFile = (paths: Pick<HomePaths, "store">) => join(paths.store, "sessions-scan.json");

/** The mark as saved: sessions/'s stamp and the session row count. */
export const scanMark = (stamp: string, rows: number) => `${stamp}/${rows}`;

/** The saved mark; undefined when there is none or it cannot be read (a link in the home is never followed). */
export function readScanMark(paths: Pick<HomePaths, "store">): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(markFile(paths), constants.O_RDONLY | constants.O_NOFOLLOW);
    const mark = (JSON.parse(readFileSync(fd, "utf8")) as { mark?: unknown }).mark;
    return typeof mark === "string" ? mark : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Save the mark (a temp file created new, then renamed over the old one: a reader sees one whole mark or none).
 * Not synced: a mark lost in a crash only costs the next process a scan. A failure is no error, likewise.
 */
export function saveScanMark(paths: Pick<HomePaths, "store">, mark: string): void {
  const file = markFile(paths);
  const tmp = `${file}.${process.pid}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE);
    writeSync(fd, JSON.stringify({ mark }));
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
  }
}
