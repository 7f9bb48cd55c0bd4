// A stamp that changes whenever the database is written, by this connection or another: what caches of
// derived data per connection check before each use (two tiny statements, no table read).
import type { Database } from "bun:sqlite";

/** data_version moves on other connections' commits, total_changes on this connection's writes. */
export function writeStamp(db: Database): string {
  const r = db.query("SELECT total_changes() AS t").get() as { t: bigint | number };
  const v = db.query("PRAGMA data_version").get() as { data_version: bigint | number };
  return `${v.data_version}:${r.t}`;
}
