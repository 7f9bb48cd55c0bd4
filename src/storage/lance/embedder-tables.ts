// The LanceDB tables of one kind (by name prefix), each with the embedder id stored in its schema metadata.
import type { Connection } from "@lancedb/lancedb";

/** The schema metadata key that names the embedder a table's vectors came from. */
export const EMBEDDER_KEY = "memvoy.embedder";

export interface TableInfo {
  name: string;
  embedderId: string;
}

/** Every table whose name starts with `prefix` and whose schema names its embedder. */
export async function embedderTables(conn: Connection, prefix: string): Promise<TableInfo[]> {
  const out: TableInfo[] = [];
  for (const name of await conn.tableNames()) {
    if (!name.startsWith(prefix)) continue;
    const t = await conn.openTable(name);
    const id = (await t.schema()).metadata.get(EMBEDDER_KEY);
    t.close();
    if (id) out.push({ name, embedderId: id });
  }
  return out;
}
