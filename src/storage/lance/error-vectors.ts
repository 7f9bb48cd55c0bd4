// Error-memory vectors in LanceDB (.store/lance): one table per embedder id, rows of (record id, vector) only.
import { privatizeTree } from "./private-modes.ts";
import type { Table } from "@lancedb/lancedb";
import { errorMessage, namedError } from "../../shared/errors.ts";
import { connectLance, loadLanceDb } from "./load-lancedb.ts";
import { EMBEDDER_KEY, EmbedderTableStore, embedderTableName } from "./embedder-tables.ts";
import { assertDimensions } from "./vector-dimension.ts";

/** LanceDB refused to open the store or create an embedder's table; `reason` is its own first words. */
export const ErrorVectorStoreError = namedError<
  { op: "open"; dir: string; reason: string } | { op: "create-table"; embedderId: string; reason: string }
>("ErrorVectorStoreError", "runtime", (d) =>
  d.op === "open"
    ? `cannot open the vector store ${d.dir}: ${d.reason}`
    : `cannot create the error vector table for ${d.embedderId}: ${d.reason}`,
);
export type ErrorVectorStoreError = InstanceType<typeof ErrorVectorStoreError>;

const PREFIX = "error_memory_";

export interface ErrorVector {
  id: string;
  vector: Float32Array;
}

export interface ErrorVectorHit {
  id: string;
  /** Cosine similarity, 1 = same direction. */
  score: number;
}

/** A valid Lance table name, unique per embedder id. */
export function errorTableName(embedderId: string): string {
  return embedderTableName(PREFIX, embedderId);
}

/** Small fragments tolerated before a write compacts the table (a compaction of this many takes ~50 ms). */
const COMPACT_AT_FRAGMENTS = 24;

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Compact fragments and drop versions older than a minute (a reader may still be on a newer one). */
async function optimize(t: Table): Promise<void> {
  await t.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
}

export class ErrorVectorStore extends EmbedderTableStore {
  static async open(dir: string): Promise<ErrorVectorStore> {
    const conn = await connectLance(
      dir,
      (reason, cause) => new ErrorVectorStoreError({ op: "open", dir, reason }, { cause }),
    );
    return new ErrorVectorStore(conn, dir, PREFIX);
  }

  private async open(embedderId: string): Promise<Table | undefined> {
    const name = errorTableName(embedderId);
    return (await this.conn.tableNames()).includes(name) ? this.conn.openTable(name) : undefined;
  }

  private async openOrCreate(embedderId: string, dim: number): Promise<Table> {
    const existing = await this.open(embedderId);
    if (existing) return existing;
    const { arrow } = await loadLanceDb();
    const { Field, Schema, Utf8, Float32, FixedSizeList } = arrow;
    const schema = new Schema(
      [
        new Field("id", new Utf8(), false),
        new Field("vector", new FixedSizeList(dim, new Field("item", new Float32(), true)), false),
      ],
      new Map([[EMBEDDER_KEY, embedderId]]),
    );
    try {
      return await this.conn.createEmptyTable(errorTableName(embedderId), schema, { existOk: true });
    } catch (err) {
      throw new ErrorVectorStoreError({ op: "create-table", embedderId, reason: errorMessage(err) }, { cause: err });
    }
  }

  /**
   * Store vectors by record id in the table of `embedderId`. With `replace`, earlier vectors of these ids
   * are deleted first; without it the ids must be new to the table (a delete costs more than the write).
   */
  async upsert(
    embedderId: string,
    dim: number,
    rows: readonly ErrorVector[],
    options: { replace: boolean },
  ): Promise<void> {
    if (rows.length === 0) return;
    assertDimensions(rows, dim);
    const { lancedb } = await loadLanceDb();
    const t = await this.openOrCreate(embedderId, dim);
    try {
      const data = lancedb.makeArrowTable(
        rows.map((r) => ({ id: r.id, vector: Array.from(r.vector) })),
        { schema: await t.schema() },
      );
      if (options.replace) await t.delete(`id IN (${rows.map((r) => quote(r.id)).join(", ")})`);
      await t.add(data);
      // Each write adds a fragment, and scans slow down with every one: compact while they are few.
      if ((await t.stats()).fragmentStats.numSmallFragments >= COMPACT_AT_FRAGMENTS) await optimize(t);
    } finally {
      t.close();
      privatizeTree(this.dir);
    }
  }

  /**
   * The `limit` nearest vectors of `embedderId`'s table by cosine, among `onlyIds` when given; none when the
   * table does not exist.
   */
  async search(
    embedderId: string,
    vector: Float32Array,
    limit: number,
    onlyIds?: readonly string[],
  ): Promise<ErrorVectorHit[]> {
    if (onlyIds && onlyIds.length === 0) return [];
    const t = await this.open(embedderId);
    if (!t) return [];
    try {
      let q = t.vectorSearch(Array.from(vector)).distanceType("cosine").select(["id"]).limit(limit);
      if (onlyIds) q = q.where(`id IN (${onlyIds.map(quote).join(", ")})`);
      const rows = (await q.toArray()) as {
        id: string;
        _distance: number;
      }[];
      return rows.map((r) => ({ id: r.id, score: 1 - r._distance }));
    } finally {
      t.close();
    }
  }

  /** Up to `n` stored vectors in storage order (a sample of the corpus, unrelated to any query). */
  async sample(embedderId: string, n: number): Promise<Float32Array[]> {
    const t = await this.open(embedderId);
    if (!t) return [];
    try {
      const rows = (await t.query().select(["vector"]).limit(n).toArray()) as {
        vector: { toArray(): Float32Array } | number[];
      }[];
      return rows.map((r) =>
        Array.isArray(r.vector) ? Float32Array.from(r.vector) : Float32Array.from(r.vector.toArray()),
      );
    } finally {
      t.close();
    }
  }

  /** Delete these record ids from every error table. */
  async deleteIds(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const { name } of await this.tables()) {
      const t = await this.conn.openTable(name);
      try {
        for (let i = 0; i < ids.length; i += 500)
          await t.delete(
            `id IN (${ids
              .slice(i, i + 500)
              .map(quote)
              .join(", ")})`,
          );
      } finally {
        t.close();
      }
    }
    privatizeTree(this.dir);
  }

  /** Every id stored for `embedderId` (tests and consistency checks). */
  async ids(embedderId: string): Promise<string[]> {
    const t = await this.open(embedderId);
    if (!t) return [];
    try {
      return ((await t.query().select(["id"]).toArray()) as { id: string }[]).map((r) => r.id);
    } finally {
      t.close();
    }
  }

  /** Drop the tables of other embedders (their vectors can never be compared with the current ones). */
  async dropAllBut(embedderId: string): Promise<string[]> {
    const dropped: string[] = [];
    for (const t of await this.tables()) {
      if (t.embedderId === embedderId) continue;
      await this.conn.dropTable(t.name);
      dropped.push(t.embedderId);
    }
    privatizeTree(this.dir);
    return dropped;
  }

  /** Compact small fragments and drop old versions (each record adds a fragment). */
  async maintain(): Promise<void> {
    for (const { name } of await this.tables()) {
      const t = await this.conn.openTable(name);
      try {
        await optimize(t);
      } finally {
        t.close();
      }
    }
    privatizeTree(this.dir);
  }
}
