// Read-only access to another program's SQLite database (opencode): never migrated, never written, never locked for long.
import { describeError } from "../../shared/describe-error.ts";
import { namedError } from "../../shared/errors.ts";
import { Database } from "bun:sqlite";

export interface ForeignDatabase {
  /** Table names present. */
  tables(): Set<string>;
  /** Column names of a table. */
  columns(table: string): Set<string>;
  all(sql: string, ...args: (string | number | bigint | null)[]): Record<string, unknown>[];
  /** Run reads in one snapshot (a deferred read transaction), so a writer's commit midway is not half seen. */
  snapshot<T>(fn: () => T): T;
  close(): void;
}

/** Another program's SQLite database cannot be opened read-only; `reason` is SQLite's own words. */
export const ForeignDatabaseError = namedError<{ path: string; reason: string }>(
  "ForeignDatabaseError",
  "runtime",
  (d) => `cannot open ${d.path} read-only: ${d.reason}`,
);
export type ForeignDatabaseError = InstanceType<typeof ForeignDatabaseError>;

export function openForeignDatabase(path: string): ForeignDatabase {
  let db: Database;
  try {
    db = new Database(path, { readonly: true, create: false, safeIntegers: false, strict: true });
    db.run("PRAGMA busy_timeout = 2000");
    db.run("PRAGMA query_only = 1");
    db.query("SELECT count(*) FROM sqlite_master").get();
  } catch (err) {
    throw new ForeignDatabaseError({ path, reason: describeError(err) }, { cause: err });
  }
  return {
    tables: () =>
      new Set(
        (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
          (r) => r.name,
        ),
      ),
    columns: (table) =>
      new Set((db.query(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name)),
    all: (sql, ...args) => db.query(sql).all(...args) as Record<string, unknown>[],
    snapshot: (fn) => db.transaction(fn).deferred(),
    close: () => db.close(),
  };
}
