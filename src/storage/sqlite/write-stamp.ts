// A stamp that changes whenever the database is written, by this connection or another: what caches of
// derived data per connection check before each use (one tiny statement, no table read).
import type { Database } from "bun:sqlite";

/** data_version moves on other connections' commits, total_changes on this connection's writes. */
export function writeStamp(db: Database): string {
  const r = db.query("SELECT v.data_version AS v, total_changes() AS t FROM pragma_data_version v").get() as {
    v: bigint | number;
    t: bigint | number;
  };
  return `${r.v}:${r.t}`;
}
