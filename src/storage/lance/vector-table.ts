// One embedder's vectors: upsert, delete (by session below a seq, by ids), filtered cosine search, ANN upkeep.
import { privatizeTree } from "./private-modes.ts";
import type { Table } from "@lancedb/lancedb";
import { loadLanceDb } from "./load-lancedb.ts";

import { assertDimensions } from "./vector-dimension.ts";
import { arrowTable, bigints, strings, vectors } from "./arrow-columns.ts";
import { resultColumns } from "./search-result-ipc.ts";
import { asDamaged, versionDropped } from "./damaged-table.ts";
import { groupByFragment, othersOfFragment } from "./fragment-rows.ts";
import type { DeleteOptions, MessageVectorTable, VectorFilter, VectorHit, VectorRow } from "../ports/vector-port.ts";

type Arrow = Awaited<ReturnType<typeof loadLanceDb>>["arrow"];

export type { VectorFilter, VectorHit, VectorRow };

/**
 * Below this many rows a flat scan stays under ~20 ms; past it the HNSW index pays off (bench/semantic.ts:
 * flat p50 10 ms at 10k, 23 ms at 25k, 38 ms at 50k, 98 ms at 100k on 2 cores).
 */
export const ANN_MIN_ROWS = 20_000;
/** HNSW search breadth and exact re-ranking of 2x the candidates: recall@10 0.97 (0.62 with defaults) at 100k. */
export const ANN_EF = 400;
export const ANN_REFINE = 2;
/** Schema metadata of a table created with stable row ids ("true"); LanceDB does not tell it otherwise. */
export const STABLE_ROW_IDS_KEY = "memvoy.stable_row_ids";

/** apache-arrow's reader of an IPC buffer (for what search-result-ipc.ts does not read). */
const fromIpc = async () => (await loadLanceDb()).arrow.tableFromIPC;

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** How many times a read is made again on the latest version after another process dropped the one it was on. */
const READ_ATTEMPTS = 6;

export function whereClause(f: VectorFilter): string | undefined {
  const parts: string[] = [];
  if (f.session !== undefined) parts.push(`session = ${quote(f.session)}`);
  if (f.since !== undefined) parts.push(`send_at >= ${f.since}`);
  if (f.until !== undefined) parts.push(`send_at < ${f.until}`);
  if (f.role !== undefined) parts.push(`role = ${quote(f.role)}`);
  if (f.ids !== undefined) parts.push(f.ids.length ? `id IN (${f.ids.map(quote).join(", ")})` : "false");
  return parts.length ? parts.join(" AND ") : undefined;
}

export class VectorTable implements MessageVectorTable {
  private constructor(
    private readonly t: Table,
    readonly dim: number,
    /** The store's folder, made private after each commit (see private-modes.ts). */
    private readonly root?: string,
  ) {}

  static wrap(t: Table, dim: number, root?: string): VectorTable {
    return new VectorTable(t, dim, root);
  }

  private committed(): void {
    if (this.root !== undefined) privatizeTree(this.root);
  }

  /** `work` on the table; a failure that says a file of the table is damaged is named so (damaged-table.ts). */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw asDamaged(err, this.t.name);
    }
  }

  /**
   * `read` on the latest version. A deletion in another process drops every older version and the files only they
   * used (purgeOldVersions, under the vector write lock that readers do not take): a read still on one of them
   * finds a file gone, and is made again on the latest after a short random pause, a bounded number of times. With
   * `anyFailure`, any failure is retried twice too.
   */
  private async read<T>(read: () => Promise<T>, options: { anyFailure?: boolean } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (err) {
        const again = versionDropped(err) ? attempt < READ_ATTEMPTS : options.anyFailure === true && attempt < 3;
        if (!again) throw asDamaged(err, this.t.name);
        await Bun.sleep(5 + Math.random() * 20 * attempt);
        await this.t.checkoutLatest().catch(() => {});
      }
    }
  }

  static schema(arrow: Arrow, dim: number, metadata: Map<string, string>) {
    const { Field, Schema, Utf8, Int64, Float32, FixedSizeList } = arrow;
    return new Schema(
      [
        new Field("id", new Utf8(), false),
        new Field("seq", new Int64(), false),
        new Field("session", new Utf8(), false),
        new Field("send_at", new Int64(), false),
        new Field("role", new Utf8(), false),
        new Field("content", new Utf8(), false),
        new Field("vector", new FixedSizeList(dim, new Field("item", new Float32(), true)), false),
      ],
      metadata,
    );
  }

  /** Insert or replace rows by id. */
  async upsert(rows: readonly VectorRow[]): Promise<void> {
    if (rows.length === 0) return;
    assertDimensions(rows, this.dim);
    await this.guard(async () => {
      const data = await arrowRows(rows, await this.t.schema());
      await this.t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
    });
    this.committed();
  }

  async append(rows: readonly VectorRow[]): Promise<void> {
    if (rows.length === 0) return;
    assertDimensions(rows, this.dim);
    await this.guard(async () => this.t.add(await arrowRows(rows, await this.t.schema())));
    this.committed();
  }

  /** Delete a session's rows with seq below `beforeSeq` (compaction, reset, rm). */
  async deleteBefore(session: string, beforeSeq: bigint, options: DeleteOptions = {}): Promise<void> {
    await this.deleteWhere([`session = ${quote(session)} AND seq < ${beforeSeq}`], options);
  }

  async deleteIds(ids: readonly string[], options: DeleteOptions = {}): Promise<void> {
    const batches: string[] = [];
    for (let i = 0; i < ids.length; i += 500)
      batches.push(
        `id IN (${ids
          .slice(i, i + 500)
          .map(quote)
          .join(", ")})`,
      );
    await this.deleteWhere(batches, options);
  }

  /**
   * Delete the rows any of `wheres` selects. With `scrub`, the other rows are first moved out of their fragments,
   * and the rows are deleted by address: the deletion's predicate stays in the table's last version, and ids
   * there would outlive the rows.
   */
  private async deleteWhere(wheres: readonly string[], options: DeleteOptions): Promise<void> {
    if (options.scrub) {
      const addresses = await this.moveOthersOut(wheres);
      for (let i = 0; i < addresses.length; i += 500)
        await this.guard(() => this.t.delete(`_rowaddr IN (${addresses.slice(i, i + 500).join(", ")})`));
    } else for (const where of wheres) await this.guard(() => this.t.delete(where));
    this.committed();
  }

  /**
   * A deletion only marks its rows deleted: the data file of their fragment still holds them. So the other rows
   * of each such fragment are rewritten first (into a new fragment; one fragment at a time, as an update spanning
   * an indexed and an unindexed fragment leaves both out of the index): the deletion then empties the fragment,
   * LanceDB drops it, and cleaning the old versions removes its file. Interrupted between the two, the rows to
   * delete are still there, and the deletion (still pending) does it again. With stable row ids, rewriting a
   * column the vector index does not cover keeps the rows in the index (no rebuild); a table of an earlier memvoy
   * (row ids are addresses) is rewritten only while it has no vector index, as its rows would leave the index
   * and putting them back costs a rebuild. Returns the addresses of the rows to delete.
   */
  private async moveOthersOut(wheres: readonly string[]): Promise<bigint[]> {
    const byFragment = new Map<bigint, bigint[]>();
    for (const where of wheres) {
      groupByFragment(
        byFragment,
        (await this.guard(() => this.t.query().select(["_rowaddr"]).where(where).toArray())) as {
          _rowaddr: bigint | number;
        }[],
      );
    }
    const addresses = [...byFragment.values()].flat();
    if (addresses.length === 0 || (await this.keepsRemovedRows())) return addresses;
    for (const [f, removed] of byFragment)
      await this.guard(() => this.t.update({ where: othersOfFragment(f, removed), valuesSql: { role: "role" } }));
    return addresses;
  }

  async keepsRemovedRows(): Promise<boolean> {
    return (await this.hasIndex()) && !(await this.stableRowIds());
  }

  /** Whether rows keep their ids when rewritten: the table was created so (its schema says it). */
  private async stableRowIds(): Promise<boolean> {
    return (await this.t.schema()).metadata.get(STABLE_ROW_IDS_KEY) === "true";
  }

  async count(filter: VectorFilter = {}): Promise<number> {
    return this.read(() => this.t.countRows(whereClause(filter)));
  }

  /** Ids of a session's rows with seq below `beforeSeq`. */
  async idsBefore(session: string, beforeSeq: bigint): Promise<string[]> {
    const where = `session = ${quote(session)} AND seq < ${beforeSeq}`;
    const rows = (await this.read(() => this.t.query().select(["id"]).where(where).toArray())) as { id: string }[];
    return rows.map((r) => r.id);
  }

  /** Every row's id and seq (tests and consistency checks). */
  async keys(filter: VectorFilter = {}): Promise<{ id: string; seq: bigint; session: string }[]> {
    const w = whereClause(filter);
    const t = await this.read(() => {
      const q = this.t.query().select(["id", "seq", "session"]);
      return (w ? q.where(w) : q).toArrow();
    });
    const [ids, seqs, sessions] = [t.getChild("id"), t.getChild("seq"), t.getChild("session")];
    if (!ids || !seqs || !sessions) return [];
    const seqValues = seqs.toArray() as BigInt64Array;
    const sessionValues = sessions.toArray() as string[];
    return (ids.toArray() as string[]).map((id, i) => ({ id, seq: seqValues[i]!, session: sessionValues[i]! }));
  }

  /** Every row in storage order, vectors included, one Arrow batch at a time (never the whole table). */
  async *batches(): AsyncIterable<VectorRow[]> {
    for await (const batch of this.t.query().select(["id", "seq", "session", "send_at", "role", "vector"])) {
      const [ids, seqs, sessions, sendAts, roles, vecs] = [
        strings(batch, "id"),
        bigints(batch, "seq"),
        strings(batch, "session"),
        bigints(batch, "send_at"),
        strings(batch, "role"),
        vectors(batch, "vector"),
      ];
      yield ids.map((id, i) => ({
        id,
        seq: seqs[i]!,
        session: sessions[i]!,
        sendAt: sendAts[i]!,
        role: roles[i]!,
        content: "",
        vector: vecs[i]!,
      }));
    }
  }

  search(vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    return this.read(() => this.searchOnce(vector, filter, limit), { anyFailure: true });
  }

  private async searchOnce(vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    // Only the columns a hit needs: each one more is a take of `limit` rows from storage (~10% of the query). In
    // one session, every row the filter passes is of that session.
    const session = filter.session;
    let q = this.t
      .vectorSearch(vector)
      .distanceType("cosine")
      .ef(Math.max(ANN_EF, limit * ANN_REFINE))
      .refineFactor(ANN_REFINE)
      .select(session === undefined ? ["id", "session"] : ["id"])
      .limit(limit);
    const w = whereClause(filter);
    if (w) q = q.where(w);
    const t = await resultColumns(q, fromIpc);
    const [ids, distances] = [t.strings.get("id"), t.numbers.get("_distance")];
    const sessionValues = session === undefined ? t.strings.get("session") : [];
    if (!ids || !distances || !sessionValues) return [];
    return ids.map((id, i) => ({
      id: id!,
      session: session ?? sessionValues[i]!,
      score: 1 - distances[i]!,
    }));
  }

  /** Up to `n` stored vectors spread over the table (background statistics of relevance). */
  sample(n: number): Promise<Float32Array[]> {
    return this.read(() => this.sampleOnce(n));
  }

  private async sampleOnce(n: number): Promise<Float32Array[]> {
    const total = await this.t.countRows();
    if (total === 0) return [];
    const step = Math.max(1, Math.floor(total / n));
    const where = step > 1 ? `seq % ${step} = 0` : "true";
    const rows = (await this.t.query().select(["seq", "vector"]).where(where).limit(n).toArray()) as {
      vector: ArrayLike<number>;
    }[];
    const out = rows.map((r) => Float32Array.from(r.vector));
    if (out.length >= Math.min(n, total) / 2) return out;
    const more = (await this.t.query().select(["vector"]).limit(n).toArray()) as { vector: ArrayLike<number> }[];
    return more.map((r) => Float32Array.from(r.vector));
  }

  /** Compact small fragments into larger ones and drop old versions (and fold new rows into the index). */
  async compact(): Promise<void> {
    await this.guard(() => this.t.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) }));
    this.committed();
  }

  /**
   * After a deletion: drop every older version and the files only they used, so removed rows survive in no
   * version. Only under the vector write lock; readers of an old version retry on the latest.
   */
  async purgeOldVersions(): Promise<void> {
    await this.guard(() => this.t.optimize({ cleanupOlderThan: new Date(Date.now() + 1000), deleteUnverified: true }));
    this.committed();
  }

  /** Rows written by an older memvoy that still carry message text. */
  async rowsWithText(): Promise<number> {
    return this.t.countRows("content != ''");
  }

  /** Rewrite the table with the text column emptied (a one-time upgrade of an older table, under the lock). */
  async dropText(): Promise<void> {
    const schema = await this.t.schema();
    const rows = (await this.t
      .query()
      .select(["id", "seq", "session", "send_at", "role", "vector"])
      .toArray()) as StoredRow[];
    const data = await arrowRows(
      rows.map((r) => ({
        ...r,
        sendAt: r.send_at,
        content: "",
        vector: toFloat32(r.vector),
      })),
      schema,
    );
    await this.t.add(data, { mode: "overwrite" });
    this.committed();
  }

  async hasIndex(): Promise<boolean> {
    return (await this.t.listIndices()).some((i) => i.columns.includes("vector"));
  }

  /** Build the HNSW index when the table has reached `minRows` and has none yet; true when built now. */
  async ensureIndex(minRows = ANN_MIN_ROWS, onBuild?: (rows: number) => void): Promise<boolean> {
    const rows = await this.t.countRows();
    if (rows < minRows || (await this.hasIndex())) return false;
    onBuild?.(rows);
    const { lancedb } = await loadLanceDb();
    await this.t.createIndex("vector", { config: lancedb.Index.hnswSq({ distanceType: "cosine" }) });
    this.committed();
    return true;
  }

  /** Full upkeep: compaction, then the index when large enough. */
  async maintain(
    options: { annMinRows?: number; onIndexBuild?: (rows: number) => void } = {},
  ): Promise<{ indexed: boolean; rows: number }> {
    await this.compact();
    await this.ensureIndex(options.annMinRows, options.onIndexBuild);
    return { indexed: await this.hasIndex(), rows: await this.t.countRows() };
  }

  close(): void {
    this.t.close();
  }
}

interface StoredRow {
  id: string;
  seq: bigint;
  session: string;
  send_at: bigint;
  role: string;
  vector: { toArray(): Float32Array } | number[];
}

const toFloat32 = (v: StoredRow["vector"]) => Float32Array.from(Array.isArray(v) ? v : v.toArray());

/** Rows in the table's Arrow shape (column send_at), built column by column. */
async function arrowRows(rows: readonly VectorRow[], schema: Awaited<ReturnType<Table["schema"]>>) {
  const { arrow } = await loadLanceDb();
  return arrowTable(arrow, schema, rows.length, {
    id: rows.map((r) => r.id),
    seq: BigInt64Array.from(rows, (r) => r.seq),
    session: rows.map((r) => r.session),
    send_at: BigInt64Array.from(rows, (r) => r.sendAt),
    role: rows.map((r) => r.role),
    content: rows.map((r) => r.content),
    vector: rows.map((r) => r.vector),
  });
}
