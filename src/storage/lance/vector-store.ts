// LanceDB vector store under .store/lance: one table per embedder (id + dimension), rows keyed by message id.
import type { Table } from "@lancedb/lancedb";
import { errorMessage, namedError } from "../../shared/errors.ts";
import { connectLance, loadLanceDb } from "./load-lancedb.ts";
import { privatizeTree } from "./private-modes.ts";
import { VectorTable } from "./vector-table.ts";
import { EMBEDDER_KEY, EmbedderTableStore, embedderTableName, type TableInfo } from "./embedder-tables.ts";

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

/** A table name that is a valid Lance identifier and unique per embedder id. */
export function tableNameFor(embedderId: string): string {
  return embedderTableName("messages_", embedderId);
}

export class VectorStore extends EmbedderTableStore {
  static async open(dir: string): Promise<VectorStore> {
    const conn = await connectLance(
      dir,
      (reason, cause) => new VectorStoreError({ op: "open", dir, reason }, { cause }),
    );
    return new VectorStore(conn, dir, "messages_");
  }

  /** The table of one embedder; created empty when `create` is set, else undefined if absent. */
  async table(embedderId: string, dim: number, options: { create?: boolean } = {}): Promise<VectorTable | undefined> {
    const name = tableNameFor(embedderId);
    const names = await this.conn.tableNames();
    let t: Table;
    if (names.includes(name)) t = await this.conn.openTable(name);
    else if (!options.create) return undefined;
    else {
      const { arrow } = await loadLanceDb();
      try {
        t = await this.conn.createEmptyTable(
          name,
          VectorTable.schema(arrow, dim, new Map([[EMBEDDER_KEY, embedderId]])),
          {
            existOk: true,
          },
        );
        privatizeTree(this.dir);
      } catch (err) {
        throw new VectorStoreError({ op: "create-table", table: name, reason: errorMessage(err) }, { cause: err });
      }
    }
    return VectorTable.wrap(t, dim, this.dir);
  }

  async drop(embedderId: string): Promise<void> {
    const name = tableNameFor(embedderId);
    if ((await this.conn.tableNames()).includes(name)) await this.conn.dropTable(name);
    privatizeTree(this.dir);
  }
}
