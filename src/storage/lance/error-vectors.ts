// Error-memory vectors in LanceDB (.store/lance or an S3 prefix): one table per embedder id, rows of (record id,
// vector) only. The error-vector side of the vectors port.
import type { Table } from "@lancedb/lancedb";
import { VectorStoreRefusedError } from "./store-refused.ts";
import { errorMessage, namedError } from "../../shared/errors.ts";
import type { DamagedTable, ErrorVector, ErrorVectorHit, ErrorVectors } from "../ports/vector-port.ts";
import type { VectorLocation } from "../ports/vector-location.ts";
import { HomeLinkRefusedError } from "../../shared/no-follow.ts";
import { ConnectedStore, connectStore, locationLabel, openIfExists } from "./connect-store.ts";
import { loadLanceDb } from "./load-lancedb.ts";
import { EMBEDDER_KEY, ERROR_TABLES, embedderTableName, embedderTables, type TableInfo } from "./embedder-tables.ts";
import { assertDimensions } from "./vector-dimension.ts";
import { groupByFragment, othersOfFragment } from "./fragment-rows.ts";
import {
  asDamaged,
  damagedTablesOf,
  dropIfExists,
  readThroughTable,
  VectorTableDamagedError,
  versionDropped,
} from "./damaged-table.ts";

/** LanceDB refused to open the store or create an embedder's table; `reason` is its own first words. */
export const ErrorVectorStoreError = namedError<
  { op: "open"; dir: string; reason: string } | { op: "create-table"; embedderId: string; reason: string }
>("ErrorVectorStoreError", "runtime", (d) =>
  d.op === "open"
    ? `cannot open the vector store ${d.dir}: ${d.reason}`
    : `cannot create the error vector table for ${d.embedderId}: ${d.reason}`,
);
export type ErrorVectorStoreError = InstanceType<typeof ErrorVectorStoreError>;

const PREFIX = ERROR_TABLES;

export type { ErrorVector, ErrorVectorHit };

/** A valid Lance table name, unique per embedder id. */
export function errorTableName(embedderId: string): string {
  return embedderTableName(PREFIX, embedderId);
}

/** Small fragments tolerated before a write compacts the table (a compaction of this many takes ~50 ms). */
const COMPACT_AT_FRAGMENTS = 24;

const toFloat32 = (v: { toArray(): Float32Array } | number[]) => Float32Array.from(Array.isArray(v) ? v : v.toArray());

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Compact fragments and drop versions older than a minute (a reader may still be on a newer one). */
async function optimize(t: Table): Promise<void> {
  await t.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
}

/**
 * Rewrite the rows of `t` that share a fragment with a row of `ids` into new fragments, one fragment at a time;
 * returns the addresses of the rows of `ids`, which their fragments now hold alone.
 */
async function moveOthersOut(t: Table, ids: readonly string[]): Promise<bigint[]> {
  const byFragment = new Map<bigint, bigint[]>();
  for (let i = 0; i < ids.length; i += 500) {
    const where = `id IN (${ids
      .slice(i, i + 500)
      .map(quote)
      .join(", ")})`;
    groupByFragment(
      byFragment,
      (await t.query().select(["_rowaddr"]).where(where).toArray()) as { _rowaddr: bigint | number }[],
    );
  }
  for (const [f, removed] of byFragment)
    await t.update({ where: othersOfFragment(f, removed), valuesSql: { id: "id" } });
  return [...byFragment.values()].flat();
}

/** How many times a write another process preempted is made again (LanceDB: "… preempted …. Please retry."). */
const PREEMPTED_ATTEMPTS = 6;

/** A compaction of fragments another process's delete removed meanwhile. */
const FRAGMENT_GONE = /does not contain a fragment a rewrite operation wants to replace/;

/**
 * Another process committed a conflicting change meanwhile (two processes recording at once: a compaction preempts
 * the other's, a delete preempts a compaction) or dropped the version this one was made on (an errors rm).
 */
export function preempted(err: unknown): boolean {
  const message = errorMessage(err);
  return message.includes("Please retry") || versionDropped(err) || FRAGMENT_GONE.test(message);
}

/**
 * `commit` again when it was preempted, with a short random pause, a bounded number of times. The table handle
 * reads the latest version on each call (readConsistencyInterval 0).
 */
export async function retryPreempted<T>(commit: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await commit();
    } catch (err) {
      if (attempt >= PREEMPTED_ATTEMPTS || !preempted(err)) throw err;
      await Bun.sleep(5 + Math.random() * 20 * attempt);
    }
  }
}

/** Drop every version but the latest, and the files only they used. */
function dropOlderVersions(t: Table): Promise<void> {
  return retryPreempted(() => t.optimize({ cleanupOlderThan: new Date(Date.now() + 1000) })).then(() => {});
}

/** A table handle kept for reads: closed once it is retired and no read uses it. */
class KeptTable {
  #users = 0;
  #retired = false;
  constructor(private readonly table: Promise<Table | undefined>) {}

  use(): Promise<Table | undefined> {
    this.#users++;
    return this.table;
  }

  done(): void {
    this.#users--;
    this.#closeIfUnused();
  }

  retire(): void {
    this.#retired = true;
    this.#closeIfUnused();
  }

  #closeIfUnused(): void {
    if (this.#retired && this.#users === 0)
      void this.table.then(
        (t) => t?.close(),
        () => {},
      );
  }
}

export class ErrorVectorStore extends ConnectedStore implements ErrorVectors {
  /** The store in a local folder (a path) or at a location of the vectors port. */
  static async open(where: string | VectorLocation): Promise<ErrorVectorStore> {
    try {
      return new ErrorVectorStore(await connectStore(where));
    } catch (err) {
      if (err instanceof HomeLinkRefusedError || err instanceof VectorStoreRefusedError) throw err;
      throw new ErrorVectorStoreError(
        { op: "open", dir: locationLabel(where), reason: errorMessage(err) },
        { cause: err },
      );
    }
  }

  /** Tables kept open for searches, by embedder id: a kept handle sees other processes' commits (connect-store.ts). */
  readonly #reading = new Map<string, KeptTable>();
  /** The writes of this process, one after another (see #write). */
  #writes: Promise<unknown> = Promise.resolve();
  /** The last sample of each table, with the table version it was read at. */
  readonly #samples = new Map<string, { version: number; n: number; vectors: Float32Array[] }>();

  private open(embedderId: string): Promise<Table | undefined> {
    const name = errorTableName(embedderId);
    return openIfExists(this.conn, name).catch((err) => {
      throw asDamaged(err, name);
    });
  }

  /**
   * `read` on the kept handle of `embedderId`'s table; `none` when the table does not exist. A table dropped or
   * cleaned by another process since is opened again, once; a read that found a file of a version another
   * process's errors rm dropped meanwhile, as often as a preempted write is made again (each rm drops the next).
   */
  private async reading<T>(embedderId: string, read: (t: Table) => Promise<T>, none: T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let kept = this.#reading.get(embedderId);
      if (!kept) this.#reading.set(embedderId, (kept = new KeptTable(this.open(embedderId))));
      try {
        const t = await kept.use();
        if (!t) {
          this.#drop(embedderId, kept); // created later, by this process or another
          return none;
        }
        return await read(t);
      } catch (err) {
        this.#drop(embedderId, kept);
        if (attempt >= (versionDropped(err) ? PREEMPTED_ATTEMPTS : 2)) throw asDamaged(err, errorTableName(embedderId));
        if (attempt > 1) await Bun.sleep(5 + Math.random() * 20 * attempt);
      } finally {
        kept.done();
      }
    }
  }

  /** Stop keeping `kept` (closed once no read uses it). */
  #drop(embedderId: string, kept: KeptTable): void {
    if (this.#reading.get(embedderId) === kept) this.#forget(embedderId);
  }

  /** Stop keeping the handle of one table. */
  #forget(embedderId: string): void {
    this.#reading.get(embedderId)?.retire();
    this.#reading.delete(embedderId);
    this.#samples.delete(embedderId);
  }

  /**
   * One write of this process at a time (two at once conflict at commit: a compaction preempts the other). After it
   * the kept handles are let go: a remote store's handle may not see the write at once.
   */
  #write<T>(write: () => Promise<T>): Promise<T> {
    const run = () => write().finally(() => this.#forgetAll());
    const done = this.#writes.then(run, run);
    this.#writes = done.catch(() => {});
    return done;
  }

  #forgetAll(): void {
    for (const id of [...this.#reading.keys()]) this.#forget(id);
  }

  override close(): void {
    this.#forgetAll();
    super.close();
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
      throw new ErrorVectorStoreError(
        { op: "create-table", embedderId, reason: this.store.reason(err) },
        this.causeOf(err),
      );
    }
  }

  /**
   * Store vectors by record id in the table of `embedderId`. With `replace`, earlier vectors of these ids
   * are deleted first; without it the ids must be new to the table (a delete costs more than the write).
   */
  upsert(embedderId: string, dim: number, rows: readonly ErrorVector[], options: { replace: boolean }): Promise<void> {
    return this.#write(async () => {
      if (rows.length === 0) return;
      assertDimensions(rows, dim);
      const { lancedb } = await loadLanceDb();
      const t = await retryPreempted(() => this.openOrCreate(embedderId, dim));
      try {
        const data = lancedb.makeArrowTable(
          rows.map((r) => ({ id: r.id, vector: Array.from(r.vector) })),
          { schema: await retryPreempted(() => t.schema()) },
        );
        if (options.replace) await retryPreempted(() => t.delete(`id IN (${rows.map((r) => quote(r.id)).join(", ")})`));
        await retryPreempted(() => t.add(data));
        // Each write adds a fragment, and scans slow down with every one: compact while they are few.
        // The vector is stored: a compaction other processes' writes keep preempting is left to the next write.
        if ((await retryPreempted(() => t.stats())).fragmentStats.numSmallFragments >= COMPACT_AT_FRAGMENTS)
          await retryPreempted(() => optimize(t)).catch((err) => {
            if (!preempted(err)) throw err;
          });
      } catch (err) {
        throw asDamaged(err, errorTableName(embedderId));
      } finally {
        t.close();
        this.committed();
      }
    });
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
    return this.reading(
      embedderId,
      async (t) => {
        let q = t.vectorSearch(Array.from(vector)).distanceType("cosine").select(["id"]).limit(limit);
        if (onlyIds) q = q.where(`id IN (${onlyIds.map(quote).join(", ")})`);
        const rows = (await q.toArray()) as {
          id: string;
          _distance: number;
        }[];
        return rows.map((r) => ({ id: r.id, score: 1 - r._distance }));
      },
      [],
    );
  }

  /**
   * Up to `n` stored vectors in storage order (a sample of the corpus, unrelated to any query); read again only
   * when the table has changed since the last one.
   */
  async sample(embedderId: string, n: number): Promise<Float32Array[]> {
    return this.reading(
      embedderId,
      async (t) => {
        const version = await t.version();
        const kept = this.#samples.get(embedderId);
        if (kept?.version === version && kept.n === n) return kept.vectors;
        const rows = (await t.query().select(["vector"]).limit(n).toArray()) as {
          vector: { toArray(): Float32Array } | number[];
        }[];
        const vectors = rows.map((r) => toFloat32(r.vector));
        this.#samples.set(embedderId, { version, n, vectors });
        return vectors;
      },
      [],
    );
  }

  /** Every stored row of `embedderId`'s table, one Arrow batch at a time. */
  async *batches(embedderId: string): AsyncIterable<ErrorVector[]> {
    const t = await this.open(embedderId);
    if (!t) return;
    try {
      for await (const batch of t.query().select(["id", "vector"])) {
        const rows = batch.toArray() as unknown as { id: string; vector: { toArray(): Float32Array } | number[] }[];
        yield rows.map((r) => ({ id: r.id, vector: toFloat32(r.vector) }));
      }
    } finally {
      t.close();
    }
  }

  /** Every error table with the embedder its vectors came from. */
  tables(probe: readonly string[] = []): Promise<TableInfo[]> {
    // A local table LanceDB cannot open is left out (damagedTables() names it), as for the message vectors.
    return embedderTables(
      this.conn,
      PREFIX,
      probe,
      (err, name) => this.dir !== undefined && asDamaged(err, name) instanceof VectorTableDamagedError,
    );
  }

  damagedTables(): Promise<DamagedTable[]> {
    return damagedTablesOf(this.conn, PREFIX);
  }

  readThrough(embedderId: string): Promise<number> {
    return readThroughTable(this.conn, errorTableName(embedderId));
  }

  /** Drop `embedderId`'s table, damaged or not. */
  drop(embedderId: string): Promise<void> {
    return this.dropTable(errorTableName(embedderId));
  }

  /** Drop a table by its name (a damaged one included). */
  dropTable(name: string): Promise<void> {
    return this.#write(async () => {
      await dropIfExists(this.conn, name);
      this.committed();
    });
  }

  /**
   * Delete these record ids from every error table, leaving no copy of their rows in the tables' files: a
   * deletion only marks rows deleted, so the other rows of each fragment that held one are rewritten first (the
   * table has no vector index to rebuild), the rows are then deleted by address (a predicate naming the ids would
   * stay in the last version) and, with `purge`, the older versions and the files only they used are dropped.
   * Interrupted in between, the rows are still there and their deletion still pending: the next one finishes it.
   */
  deleteIds(ids: readonly string[], probe: readonly string[] = [], options: { purge?: boolean } = {}): Promise<void> {
    return this.#write(async () => {
      if (ids.length === 0) return;
      for (const { name } of await this.tables(probe)) {
        await this.#onTable(name, async (t) => {
          const addresses = await moveOthersOut(t, ids);
          for (let i = 0; i < addresses.length; i += 500)
            await t.delete(`_rowaddr IN (${addresses.slice(i, i + 500).join(", ")})`);
          // Also when no row was left to delete: an earlier deletion of these ids may have stopped before it.
          if (options.purge !== false) await dropOlderVersions(t);
        });
      }
      this.committed();
    });
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

  /** `work` on table `name`, closed after; a file of the table gone or damaged is named so (damaged-table.ts). */
  async #onTable(name: string, work: (t: Table) => Promise<void>): Promise<void> {
    let t: Table | undefined;
    try {
      t = await this.conn.openTable(name);
      await work(t);
    } catch (err) {
      throw asDamaged(err, name);
    } finally {
      t?.close();
    }
  }

  /** Drop the tables of other embedders (their vectors can never be compared with the current ones). */
  dropAllBut(embedderId: string): Promise<string[]> {
    return this.#write(async () => {
      const dropped: string[] = [];
      for (const t of await this.tables()) {
        if (t.embedderId === embedderId) continue;
        await this.conn.dropTable(t.name);
        dropped.push(t.embedderId);
      }
      this.committed();
      return dropped;
    });
  }

  /** Compact small fragments and drop old versions (each record adds a fragment). */
  maintain(): Promise<void> {
    return this.#write(async () => {
      for (const { name } of await this.tables()) {
        await this.#onTable(name, optimize);
      }
      this.committed();
    });
  }
}
