// Connect to the PostgreSQL archive named by a URL (password from the URL or PGPASSWORD) and migrate it.
import { SQL } from "bun";
import { urlGivesLoginPassword } from "../../config/archive-url.ts";
import { PgArchive } from "./pg-archive.ts";
import { LockConnections } from "./pg-lock-connections.ts";
import { migratePg } from "./pg-migrate.ts";
import { pgOpenError, pgUrlError } from "./pg-connect-error.ts";

export interface PgOpenOptions {
  /**
   * Connections the work runs on (default 10), all opened at the first query; a session lock is held on a
   * connection of its own, opened when a lock first needs it. A one-shot command needs 1.
   */
  max?: number;
  env?: Readonly<Record<string, string | undefined>>;
  /** false: connect without running the missing migrations (doctor reports them; --migrate runs them). */
  migrate?: boolean;
}

export async function openPgArchive(url: string, options: PgOpenOptions = {}): Promise<PgArchive> {
  const env = options.env ?? process.env;
  const password = !urlGivesLoginPassword(url) && env.PGPASSWORD ? { password: env.PGPASSWORD } : {};
  const connect = (max: number) => new SQL(url, { bigint: true, max, connectionTimeout: 30, ...password });
  let sql: SQL;
  try {
    sql = connect(Math.max(1, options.max ?? 10));
  } catch (err) {
    throw pgUrlError(url, err);
  }
  try {
    if (options.migrate === false) await sql`SELECT 1`;
    else await migratePg(sql);
  } catch (err) {
    await sql.close().catch(() => {});
    throw await pgOpenError(url, err);
  }
  return new PgArchive(sql, new LockConnections(() => connect(1)));
}
