// The home's single writer lock: an IMMEDIATE SQLite transaction. It serialises writers across
// processes (busy timeout) and is released by the OS if a process dies, so no stale lock files exist.
import type { Db } from "./db.ts";

export function withWriteLock<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}
