// The home's single writer lock: an IMMEDIATE SQLite transaction. It serialises writers across
// processes (busy timeout) and is released by the OS if a process dies, so no stale lock files exist.
import type { Database } from "bun:sqlite";

export type Db = Database;

export function withWriteLock<T>(db: Database, fn: () => T): T {
  return db.transaction(fn).immediate();
}
