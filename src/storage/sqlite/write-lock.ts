// The home's single writer lock: an IMMEDIATE SQLite transaction. It serialises writers across
// processes (busy timeout) and is released by the OS if a process dies, so no stale lock files exist.
import { basename } from "node:path";
import type { Db } from "./db.ts";
import { asNoSpace } from "./no-space.ts";
import { checkDbInPlace } from "./db-in-place.ts";
import { replaceAgenvoyTriggers } from "./agenvoy-triggers.ts";

export function withWriteLock<T>(db: Db, fn: () => T): T {
  checkDbInPlace(db);
  try {
    return db
      .transaction(() => {
        replaceAgenvoyTriggers(db);
        return fn();
      })
      .immediate();
  } catch (err) {
    throw asNoSpace(err, db.filename, `writing to ${basename(db.filename)}`);
  }
}

/**
 * withWriteLock for an async caller: while another process holds the database's write lock, wait for it without
 * holding this thread (SQLite's busy timeout would: a terminal UI's keys, a server's other requests), for as long
 * as the busy timeout would have waited.
 */
export async function withWriteLockWaiting<T>(db: Db, fn: () => T): Promise<T> {
  const timeout = Number((db.query("PRAGMA busy_timeout").get() as { timeout: number | bigint }).timeout);
  const deadline = Date.now() + timeout;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    db.run("PRAGMA busy_timeout = 0");
    try {
      return withWriteLock(db, fn);
    } catch (err) {
      if ((err as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw err;
    } finally {
      db.run(`PRAGMA busy_timeout = ${timeout}`);
    }
    await Bun.sleep(wait);
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
