// Temp files of atomic writes (.<file>.<pid>.<random>.tmp) left beside their target by a writer that died: found
// (for doctor's report) and removed (each is a hidden partial copy of what was being written).
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writerMayBeAlive } from "./process-alive.ts";

const TEMP = /^\.(.+)\.(\d+)\.[a-z0-9]+\.tmp$/;

export interface StaleTempOptions {
  /** Only the temp files of this file name. */
  of?: string;
  /**
   * A file the caller holds the lock of, under which only the lock's holder writes it (history.json under the
   * home's writer lock): a temp file of it from any other process is stale, whether that process lives or not.
   */
  heldFile?: string;
}

/** The names of `dir`'s temp files whose writer is gone, in name order (a folder's own order varies by file system). */
export function staleTempFiles(dir: string, o: StaleTempOptions = {}): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.filter((name) => {
    const m = TEMP.exec(name);
    if (m === null || (o.of !== undefined && m[1] !== o.of)) return false;
    const pid = Number(m[2]);
    if (m[1] === o.heldFile) return pid !== process.pid;
    const written = modifiedMs(join(dir, name));
    return written !== undefined && !writerMayBeAlive(pid, written);
  });
}

function modifiedMs(path: string): number | undefined {
  try {
    return lstatSync(path).mtimeMs;
  } catch {
    return undefined; // gone already
  }
}

/** Remove the stale temp files of `dir` (see staleTempFiles); returns their names. */
export function removeStaleTempFiles(dir: string, o: StaleTempOptions = {}): string[] {
  const removed: string[] = [];
  for (const name of staleTempFiles(dir, o)) {
    const path = join(dir, name);
    try {
      if (!lstatSync(path).isFile()) continue;
      rmSync(path, { force: true });
      removed.push(name);
    } catch {
      // gone already
    }
  }
  return removed;
}
