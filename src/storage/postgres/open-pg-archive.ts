// Connect to the PostgreSQL archive named by a URL (password from the URL or PGPASSWORD) and migrate it.
import { SQL } from "bun";
import { urlGivesLoginPassword } from "../../config/archive-url.ts";
import { PgArchive } from "./pg-archive.ts";
import { migratePg } from "./pg-migrate.ts";
import { pgConnectError, pgUrlError } from "./pg-connect-error.ts";

export interface PgOpenOptions {
  /** Pool size (default 10): withSessionLock holds one connection while its work runs on others. */
  max?: number;
  env?: Readonly<Record<string, string | undefined>>;
  /** false: connect without running the missing migrations (doctor reports them; --migrate runs them). */
  migrate?: boolean;
}

export async function openPgArchive(url: string, options: PgOpenOptions = {}): Promise<PgArchive> {
  const env = options.env ?? process.env;
  const password = !urlGivesLoginPassword(url) && env.PGPASSWORD ? { password: env.PGPASSWORD } : {};
  let sql: SQL;
  try {
    sql = new SQL(url, { bigint: true, max: Math.max(2, options.max ?? 10), connectionTimeout: 30, ...password });
  } catch (err) {
    throw pgUrlError(url, err);
  }
  try {
    if (options.migrate === false) await sql`SELECT 1`;
    else await migratePg(sql);
  } catch (err) {
    await sql.close().catch(() => {});
    throw pgConnectError(url, err);
  }
  return new PgArchive(sql);
}
