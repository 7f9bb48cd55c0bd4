// Read-only access to another program's SQLite database (opencode): never migrated, never written, never locked for long.
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

/**
 * Another program's SQLite database cannot be opened read-only or read; `reason` is SQLite's own words, and
 * `notDatabase` says the file is not SQLite at all.
 */
export const ForeignDatabaseError = namedError<{ path: string; reason: string; notDatabase?: boolean }>(
  "ForeignDatabaseError",
  "runtime",
  (d) => `cannot open ${d.path} read-only: ${d.reason}`,
);
export type ForeignDatabaseError = InstanceType<typeof ForeignDatabaseError>;

export function openForeignDatabase(path: string): ForeignDatabase {
  // SQLite's own words, not describeError's: that one reads a damaged database as memvoy's own archive.
  const guard = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ForeignDatabaseError) throw err;
      const code = String((err as { code?: unknown })?.code ?? "");
      const reason = (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
      throw new ForeignDatabaseError({ path, reason, notDatabase: code === "SQLITE_NOTADB" }, { cause: err });
    }
  };
  const db = guard(() => {
    const db = new Database(path, { readonly: true, create: false, safeIntegers: false, strict: true });
    db.run("PRAGMA busy_timeout = 2000");
    db.run("PRAGMA query_only = 1");
    db.query("SELECT count(*) FROM sqlite_master").get();
    return db;
  });
  return {
    tables: () =>
      guard(
        () =>
          new Set(
            (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
              (r) => r.name,
            ),
          ),
      ),
    columns: (table) =>
      guard(
        () =>
          new Set(
            (db.query(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name),
          ),
      ),
    all: (sql, ...args) => guard(() => db.query(sql).all(...args) as Record<string, unknown>[]),
    snapshot: (fn) => guard(() => db.transaction(fn).deferred()),
    close: () => db.close(),
  };
}
