// A vector table LanceDB can no longer read (a data file or manifest missing, cut short or garbled): named with
// the way out, since every vector is made again from the archive.
import type { Connection, Table } from "@lancedb/lancedb";
import { lanceReason } from "../../shared/describe-error.ts";
import { errorMessage, namedError } from "../../shared/errors.ts";
import type { DamagedTable } from "../ports/vector-port.ts";
import { openIfExists } from "./connect-store.ts";

export const VectorTableDamagedError = namedError<{ table: string; reason: string }>(
  "VectorTableDamagedError",
  "runtime",
  (d) => `the vector table ${d.table} is damaged (${d.reason}); run memvoy reindex to rebuild it from the archive`,
);
export type VectorTableDamagedError = InstanceType<typeof VectorTableDamagedError>;

// LanceDB's words for a file of the table that is gone or unreadable (read by experiment on each kind of damage:
// files removed, cut short, zeroed, or with bytes overwritten in their header, body or footer). A decoder that
// panics on such bytes is damage too.
const DAMAGE =
  /\bNot found: \S*\.(?:lance|manifest|txn)\b|\bcorrupt\b|file size is too small|failed to fill whole buffer|does not have sufficient data|Invalid range \d+\.\.\d+ for object of size|does not appear to be a Lance file|Unknown Lance storage version|outside metadata region|failed to decode Protobuf message|Invalid scalar value buffer|task \d+ panicked/i;

/**
 * A version's manifest, transaction, data or deletion file gone: another process dropped the older versions (a
 * deletion's purge) meanwhile, the files only they used included. Or a file read at one size and found at another:
 * another process's commit rewrote it in place meanwhile. A file of the latest version gone or cut stays so.
 */
const VERSION_DROPPED =
  /Not found: \S*\/(?:_versions\/\d+\.manifest|_transactions\/\S+\.txn|data\/\S+\.lance|_deletions\/\S+\.(?:arrow|bin))\b|Invalid range \d+\.\.\d+ for object of size \d+/;

/** Whether `err` says a file of a version another process dropped is gone: the latest version may read. */
export function versionDropped(err: unknown): boolean {
  return VERSION_DROPPED.test(errorMessage(err));
}

/** `err` as a VectorTableDamagedError of `table` when it says a file of the table is damaged or missing. */
export function asDamaged(err: unknown, table: string): unknown {
  if (err instanceof VectorTableDamagedError) return err;
  const text = errorMessage(err);
  return DAMAGE.test(text) ? new VectorTableDamagedError({ table, reason: lanceReason(text) }, { cause: err }) : err;
}

/** The tables named `prefix…` that LanceDB cannot open at all (a manifest cut short or garbled). */
export async function damagedTablesOf(conn: Connection, prefix: string): Promise<DamagedTable[]> {
  const out: DamagedTable[] = [];
  for (const name of (await conn.tableNames()).filter((n) => n.startsWith(prefix))) {
    try {
      (await openIfExists(conn, name))?.close();
    } catch (err) {
      const damaged = asDamaged(err, name);
      if (!(damaged instanceof VectorTableDamagedError)) throw err;
      out.push({ table: name, error: damaged });
    }
  }
  return out;
}

/** Read every row of table `name` through (doctor): how many; a damaged table throws VectorTableDamagedError. */
export async function readThroughTable(conn: Connection, name: string): Promise<number> {
  // A deletion may clean the version being read (its files go): read the latest again before calling it damage.
  for (let attempt = 1; ; attempt++) {
    let t: Table | undefined;
    try {
      t = await openIfExists(conn, name);
      if (!t) return 0;
      let rows = 0;
      for await (const batch of t.query()) rows += batch.numRows;
      return rows;
    } catch (err) {
      if (attempt >= 3) throw asDamaged(err, name);
    } finally {
      t?.close();
    }
  }
}

/** Drop table `name` if it exists, damaged or not (a table that cannot be opened can still be dropped). */
export async function dropIfExists(conn: Connection, name: string): Promise<void> {
  const t = await openIfExists(conn, name).catch(() => "damaged" as const);
  if (!t) return;
  if (t !== "damaged") t.close();
  await conn.dropTable(name);
}
