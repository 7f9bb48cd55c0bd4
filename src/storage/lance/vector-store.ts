// LanceDB vector store (.store/lance or an S3 prefix): one table per embedder (id + dimension), rows keyed by
// message id. The message-vector side of the vectors port.
import type { Table } from "@lancedb/lancedb";
import { errorMessage, namedError } from "../../shared/errors.ts";
import type { DamagedTable, MessageVectors } from "../ports/vector-port.ts";
import type { VectorLocation } from "../ports/vector-location.ts";
import { HomeLinkRefusedError } from "../../shared/no-follow.ts";
import { ConnectedStore, connectStore, locationLabel, openIfExists } from "./connect-store.ts";
import { loadLanceDb } from "./load-lancedb.ts";
import { VectorStoreRefusedError } from "./store-refused.ts";
import { STABLE_ROW_IDS_KEY, VectorTable } from "./vector-table.ts";
import {
  asDamaged,
  damagedTablesOf,
  dropIfExists,
  readThroughTable,
  VectorTableDamagedError,
} from "./damaged-table.ts";
import { EMBEDDER_KEY, embedderTableName, embedderTables, type TableInfo } from "./embedder-tables.ts";

/** LanceDB refused to open the store or create a table; `reason` is its own first words. */
export const VectorStoreError = namedError<
  { op: "open"; dir: string; reason: string } | { op: "create-table"; table: string; reason: string }
>("VectorStoreError", "runtime", (d) =>
  d.op === "open"
    ? `cannot open the vector store ${d.dir}: ${d.reason}`
    : `cannot create vector table ${d.table}: ${d.reason}`,
);
export type VectorStoreError = InstanceType<typeof VectorStoreError>;

export type { TableInfo };

const isDamage = (err: unknown, table: string) => asDamaged(err, table) instanceof VectorTableDamagedError;

/** A table name that is a valid Lance identifier and unique per embedder id. */
export function tableNameFor(embedderId: string): string {
  return embedderTableName("messages_", embedderId);
}

export class VectorStore extends ConnectedStore implements MessageVectors {
  /** The store in a local folder (a path) or at a location of the vectors port. */
  static async open(where: string | VectorLocation): Promise<VectorStore> {
    try {
      return new VectorStore(await connectStore(where));
    } catch (err) {
      if (err instanceof HomeLinkRefusedError || err instanceof VectorStoreRefusedError) throw err;
      throw new VectorStoreError({ op: "open", dir: locationLabel(where), reason: errorMessage(err) }, { cause: err });
    }
  }

  /** Every message-vector table, with the embedder its vectors came from. */
  tables(probe: readonly string[] = []): Promise<TableInfo[]> {
    // A local table LanceDB cannot open is left out (damagedTables() names it): it must not stop searches and
    // deletions on the others, and reindex drops it. On object storage a failure may pass: it is thrown, so that
    // a deletion is tried again rather than skipping a table.
    return embedderTables(this.conn, "messages_", probe, (err, name) => this.dir !== undefined && isDamage(err, name));
  }

  damagedTables(): Promise<DamagedTable[]> {
    return damagedTablesOf(this.conn, "messages_");
  }

  async dropTable(name: string): Promise<void> {
    await this.conn.dropTable(name);
    this.committed();
  }

  /** The table of one embedder; created empty when `create` is set, else undefined if absent. */
  async table(embedderId: string, dim: number, options: { create?: boolean } = {}): Promise<VectorTable | undefined> {
    const name = tableNameFor(embedderId);
    let t: Table | undefined = await openIfExists(this.conn, name).catch((err) => {
      throw asDamaged(err, name);
    });
    if (!t && !options.create) return undefined;
    if (!t) {
      const { arrow } = await loadLanceDb();
      const metadata = new Map([
        [EMBEDDER_KEY, embedderId],
        [STABLE_ROW_IDS_KEY, "true"],
      ]);
      const schema = VectorTable.schema(arrow, dim, metadata);
      try {
        // Stable row ids: a deletion can rewrite the fragment that held the removed rows without rebuilding the
        // vector index (see VectorTable.rewriteFragments).
        t = await this.conn.createEmptyTable(name, schema, {
          existOk: true,
          storageOptions: { new_table_enable_stable_row_ids: "true" },
        });
        this.committed();
      } catch (err) {
        throw new VectorStoreError(
          { op: "create-table", table: name, reason: this.store.reason(err) },
          this.causeOf(err),
        );
      }
    }
    return VectorTable.wrap(t, dim, this.dir);
  }

  readThrough(embedderId: string): Promise<number> {
    return readThroughTable(this.conn, tableNameFor(embedderId));
  }

  async drop(embedderId: string): Promise<void> {
    // A damaged table (a manifest cut short) cannot be opened, yet it can be dropped: that is how reindex
    // rebuilds it.
    await dropIfExists(this.conn, tableNameFor(embedderId));
    this.committed();
  }
}
