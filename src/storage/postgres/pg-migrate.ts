// Bring a PostgreSQL archive to the current schema: migrations run once, in order, in one transaction,
// under an advisory lock so that hosts starting together do not race.
import type { SQL } from "bun";
import { namedError } from "../../shared/errors.ts";
import { PG_MIGRATIONS } from "./migrations/index.ts";

/** Advisory lock keys (first int4): one class for migrations, one per kind of session lock. */
export const LOCK_CLASS = { migrate: 0x6d760001, session: 0x6d760002, append: 0x6d760003 } as const;

export const PgSchemaTooNewError = namedError<{ version: number; known: number }>(
  "PgSchemaTooNewError",
  "runtime",
  (d) => `the PostgreSQL archive has schema version ${d.version}; this memvoy knows ${d.known}: upgrade memvoy`,
);

export async function migratePg(sql: SQL): Promise<number> {
  // An archive already current (every open but the first after an upgrade) is read, not locked and written:
  // the write made every process start, a read-only command's included, wait on a WAL flush under one lock.
  if ((await schemaVersion(sql)) === PG_MIGRATIONS.length) return PG_MIGRATIONS.length;
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${LOCK_CLASS.migrate}, 0)`;
    await tx`CREATE TABLE IF NOT EXISTS memvoy_schema (version integer NOT NULL)`;
    const rows = (await tx`SELECT version FROM memvoy_schema`) as { version: number }[];
    const current = rows[0]?.version ?? 0;
    if (current > PG_MIGRATIONS.length)
      throw new PgSchemaTooNewError({ version: current, known: PG_MIGRATIONS.length });
    for (let i = current; i < PG_MIGRATIONS.length; i++) await tx.unsafe(PG_MIGRATIONS[i]!);
    if (rows.length === 0) await tx`INSERT INTO memvoy_schema (version) VALUES (${PG_MIGRATIONS.length})`;
    else await tx`UPDATE memvoy_schema SET version = ${PG_MIGRATIONS.length}`;
    return PG_MIGRATIONS.length;
  });
}

/** The archive's schema version, 0 before the first migration (no memvoy_schema table yet). */
async function schemaVersion(sql: SQL): Promise<number> {
  try {
    const [r] = (await sql`SELECT version FROM memvoy_schema`) as { version: number }[];
    return r ? Number(r.version) : 0;
  } catch (err) {
    if ((err as { errno?: string }).errno === "42P01") return 0; // undefined_table
    throw err;
  }
}
