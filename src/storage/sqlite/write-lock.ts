// The home's single writer lock: an IMMEDIATE SQLite transaction. It serialises writers across
// processes (busy timeout) and is released by the OS if a process dies, so no stale lock files exist.
import { basename } from "node:path";
import type { Db } from "./db.ts";
import { asNoSpace } from "./no-space.ts";

export function withWriteLock<T>(db: Db, fn: () => T): T {
  try {
    return db.transaction(fn).immediate();
  } catch (err) {
    throw asNoSpace(err, db.filename, `writing to ${basename(db.filename)}`);
  }
}

/**
 * Inside withWriteLock: make FTS5 write its pending terms (the segment and any merge work it would do at the
 * commit) now. A savepoint does it, so a writer can do it while it waits anyway; the segment is the same.
 */
export function flushPendingIndex(db: Db): void {
  db.run("SAVEPOINT flush_index");
  db.run("RELEASE flush_index");
}
