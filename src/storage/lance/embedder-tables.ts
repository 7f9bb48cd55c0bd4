// The LanceDB tables of one kind (by name prefix), each with the embedder id stored in its schema metadata.
import type { Connection } from "@lancedb/lancedb";
import type { TableInfo } from "../ports/vector-port.ts";
import { openIfExists } from "./connect-store.ts";

export type { TableInfo };

/** How the error-memory vector tables' names start (one table per embedder). */
export const ERROR_TABLES = "error_memory_";

/** The schema metadata key that names the embedder a table's vectors came from. */
export const EMBEDDER_KEY = "memvoy.embedder";

/**
 * Every table whose name starts with `prefix` and whose schema names its embedder. The tables of the `probe`
 * embedders are also looked up by name, so that a listing that lags or misses a prefix (some S3-compatible
 * servers) never hides the table a deletion must reach.
 */
export async function embedderTables(
  conn: Connection,
  prefix: string,
  probe: readonly string[] = [],
  /** Whether a table that fails to open is left out (a damaged one: see damaged-table.ts) rather than thrown. */
  skip: (err: unknown, table: string) => boolean = () => false,
): Promise<TableInfo[]> {
  const out: TableInfo[] = [];
  const listed = (await conn.tableNames()).filter((n) => n.startsWith(prefix));
  const probed = probe.map((id) => embedderTableName(prefix, id)).filter((n) => !listed.includes(n));
  for (const name of [...listed, ...new Set(probed)]) {
    let t: Awaited<ReturnType<typeof openIfExists>>;
    try {
      t = await openIfExists(conn, name);
    } catch (err) {
      if (skip(err, name)) continue;
      throw err;
    }
    if (!t) continue;
    const id = (await t.schema()).metadata.get(EMBEDDER_KEY);
    t.close();
    if (id) out.push({ name, embedderId: id });
  }
  return out;
}

/** The longest slug of an embedder id in a table name. */
export const SLUG_MAX = 60;

/** A valid Lance table name for an embedder: `prefix`, a slug of the embedder id, and 8 hex of its hash. */
export function embedderTableName(prefix: string, embedderId: string): string {
  const slug = embedderId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")
    .slice(0, SLUG_MAX);
  const hash = new Bun.CryptoHasher("sha256").update(embedderId).digest("hex").slice(0, 8);
  return `${prefix}${slug}_${hash}`;
}
