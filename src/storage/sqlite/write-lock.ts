// The home's single writer lock: an IMMEDIATE SQLite transaction. It serialises writers across
// processes (busy timeout) and is released by the OS if a process dies, so no stale lock files exist.
import type { Database } from "bun:sqlite";
import { basename } from "node:path";
import { asNoSpace } from "./no-space.ts";

export type Db = Database;

export function withWriteLock<T>(db: Database, fn: () => T): T {
  try {
    return db.transaction(fn).immediate();
  } catch (err) {
    throw asNoSpace(err, db.filename, `writing to ${basename(db.filename)}`);
  }
}
