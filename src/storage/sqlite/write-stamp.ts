// A stamp that changes whenever the database is written, by this connection or another: what caches of
// derived data per connection check before each use (one tiny statement, no table read). Inside a read
// scope, statements see one snapshot: the stamp and what scoped() derives are read once for all of them.
import type { Database } from "bun:sqlite";

/** data_version moves on other connections' commits, total_changes on this connection's writes. */
function readStamp(db: Database): string {
  const r = db.query("SELECT v.data_version AS v, total_changes() AS t FROM pragma_data_version v").get() as {
    v: bigint | number;
    t: bigint | number;
  };
  return `${r.v}:${r.t}`;
}

interface Scope {
  stamp?: string;
  memo: Map<string, unknown>;
}

const scopes = new WeakMap<Database, Scope>();

/** The database's write stamp (readStamp), read once per read scope. */
export function writeStamp(db: Database): string {
  const scope = scopes.get(db);
  if (!scope) return readStamp(db);
  return (scope.stamp ??= readStamp(db));
}

/**
 * Runs `body` in a read transaction: its statements all see the database as it was at the first, so the small
 * reads they share (the stamp, the schema's shape, the tier's bounds) are made once (see scoped). Within a
 * transaction already open, or a scope, `body` just runs. `body` must not write.
 */
export function readScope<T>(db: Database, body: () => T): T {
  if (scopes.has(db) || db.inTransaction) return body();
  db.run("BEGIN");
  scopes.set(db, { memo: new Map() });
  try {
    return body();
  } finally {
    scopes.delete(db);
    db.run("COMMIT");
  }
}

/** `compute()`, kept under `key` until the read scope ends; outside a scope, computed each time. */
export function scoped<T>(db: Database, key: string, compute: () => T): T {
  const memo = scopes.get(db)?.memo;
  if (!memo) return compute();
  if (memo.has(key)) return memo.get(key) as T;
  const value = compute();
  memo.set(key, value);
  return value;
}
