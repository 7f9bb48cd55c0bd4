// The vectors port: message vectors (one table per embedder) and error vectors, as the memory layer uses them.
// Two implementations share the LanceDB code: the home's folder (.store/lance) and S3-compatible storage.
import type { VectorLocation } from "./vector-location.ts";

export type { VectorLocation };

export interface VectorRow {
  id: string;
  seq: bigint;
  session: string;
  sendAt: bigint;
  role: string;
  content: string;
  vector: Float32Array;
}

export interface VectorFilter {
  session?: string;
  /** Inclusive lower bound on send_at (UTC ns). */
  since?: bigint;
  /** Exclusive upper bound on send_at (UTC ns). */
  until?: bigint;
  /** Only rows of this role (user, assistant). */
  role?: string;
  /** Only these rows (a few thousand at most). */
  ids?: readonly string[];
}

export interface VectorHit {
  id: string;
  session: string;
  /** Cosine similarity, 1 = same direction. */
  score: number;
}

export interface TableInfo {
  name: string;
  embedderId: string;
}

/** A table that cannot be opened, and why (its error names the way out). */
export interface DamagedTable {
  table: string;
  error: Error;
}

export interface DeleteOptions {
  scrub?: boolean;
}

/** One embedder's message vectors. */
export interface MessageVectorTable {
  readonly dim: number;
  upsert(rows: readonly VectorRow[]): Promise<void>;
  /** Add rows whose ids are not in the table yet (no lookup of existing ids: much cheaper than upsert). */
  append(rows: readonly VectorRow[]): Promise<void>;
  /** `scrub`: the rows are of removed messages, and must leave the data files too (not only the table). */
  deleteBefore(session: string, beforeSeq: bigint, options?: DeleteOptions): Promise<void>;
  deleteIds(ids: readonly string[], options?: DeleteOptions): Promise<void>;
  count(filter?: VectorFilter): Promise<number>;
  idsBefore(session: string, beforeSeq: bigint): Promise<string[]>;
  keys(filter?: VectorFilter): Promise<{ id: string; seq: bigint; session: string }[]>;
  search(vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]>;
  /** Up to `n` stored vectors spread over the table (the background a relevance score is measured against). */
  sample(n: number): Promise<Float32Array[]>;
  /** Every stored row, vectors included, in storage order as a stream of batches (copies between stores). */
  batches(): AsyncIterable<VectorRow[]>;
  compact(): Promise<void>;
  purgeOldVersions(): Promise<void>;
  /** A table of an earlier memvoy with its vector index built: its data files keep removed rows (reindex rebuilds it). */
  keepsRemovedRows(): Promise<boolean>;
  rowsWithText(): Promise<number>;
  dropText(): Promise<void>;
  hasIndex(): Promise<boolean>;
  /** `onBuild` is told the rows before a build starts (minutes on a large table, and it cannot be cut short). */
  ensureIndex(minRows?: number, onBuild?: (rows: number) => void): Promise<boolean>;
  maintain(options?: {
    annMinRows?: number;
    onIndexBuild?: (rows: number) => void;
  }): Promise<{ indexed: boolean; rows: number }>;
  close(): void;
}

/** What both stores offer for their tables of every embedder: listing, reading through (doctor), dropping. */
export interface EmbedderTables {
  /** Every embedder's table: the store's listing, plus the tables of the `probe` embedders found by name. */
  tables(probe?: readonly string[]): Promise<TableInfo[]>;
  /** Drop one embedder's table, damaged or not. */
  drop(embedderId: string): Promise<void>;
  /** Read every row of one embedder's table through (doctor): how many; a damaged table throws. */
  readThrough(embedderId: string): Promise<number>;
  /** The tables that cannot be opened at all (a manifest cut short), which tables() leaves out. */
  damagedTables(): Promise<DamagedTable[]>;
  /** Drop a table by its name (a damaged one, whose embedder cannot be read). */
  dropTable(name: string): Promise<void>;
  close(): void;
}

/** Every embedder's message-vector table. */
export interface MessageVectors extends EmbedderTables {
  /** The table of one embedder; created empty when `create` is set, else undefined if absent. */
  table(embedderId: string, dim: number, options?: { create?: boolean }): Promise<MessageVectorTable | undefined>;
}

export interface ErrorVector {
  id: string;
  vector: Float32Array;
}

export interface ErrorVectorHit {
  id: string;
  /** Cosine similarity, 1 = same direction. */
  score: number;
}

/** Error-memory vectors: one table per embedder, rows of (record id, vector). */
export interface ErrorVectors extends EmbedderTables {
  upsert(embedderId: string, dim: number, rows: readonly ErrorVector[], options: { replace: boolean }): Promise<void>;
  search(
    embedderId: string,
    vector: Float32Array,
    limit: number,
    onlyIds?: readonly string[],
  ): Promise<ErrorVectorHit[]>;
  sample(embedderId: string, n: number): Promise<Float32Array[]>;
  /** Every stored vector of `embedderId`'s table as a stream of batches (copies between stores). */
  batches(embedderId: string): AsyncIterable<ErrorVector[]>;
  /**
   * Delete these record ids from every table (those of the `probe` embedders included), their rows' copies in the
   * tables' files too; `purge: false` leaves the older versions (which still hold them) to the next upkeep.
   */
  deleteIds(ids: readonly string[], probe?: readonly string[], options?: { purge?: boolean }): Promise<void>;
  ids(embedderId: string): Promise<string[]>;
  dropAllBut(embedderId: string): Promise<string[]>;
  maintain(): Promise<void>;
}

/** The message-vector store at `location`; LanceDB loads on this first call. */
export async function openMessageVectors(location: VectorLocation): Promise<MessageVectors> {
  const { VectorStore } = await import("../lance/vector-store.ts");
  return VectorStore.open(location);
}

/** The error-vector store at `location`; LanceDB loads on this first call. */
export async function openErrorVectors(location: VectorLocation): Promise<ErrorVectors> {
  const { ErrorVectorStore } = await import("../lance/error-vectors.ts");
  return ErrorVectorStore.open(location);
}
