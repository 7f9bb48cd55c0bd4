// The semantic tier of one home: the configured embedder and the LanceDB store, both opened on first use.
import { createEmbedder } from "../../embed/create-embedder.ts";
import type { Embedder } from "../../embed/embedder.ts";
import { queuedCount, recentCount } from "../../storage/sqlite/embed-queue-repo.ts";
import { checkDbInPlace } from "../../storage/sqlite/db-in-place.ts";
import { openMessageVectors, type MessageVectors, type MessageVectorTable } from "../../storage/ports/vector-port.ts";
import { mayHoldVectors, vectorStoreLocation } from "../vector-location.ts";
import type { MemoryContext } from "../memory-context.ts";
import { SearchBackground } from "./background-stats.ts";

export type EmbedderFactory = (cfg: MemoryContext["config"]["embedder"]) => Promise<Embedder>;

export interface IndexStatus {
  /** Recent messages waiting in the queue. */
  notIndexed: number;
  /** Vectors of another embedder exist, or recent messages are neither queued nor indexed. */
  reindexNeeded: boolean;
  /** Embedder ids of stored vectors other than the configured one. */
  otherEmbedders: string[];
  /** The configured embedder's table, when it exists. */
  table?: MessageVectorTable;
}

export class SemanticIndex {
  #embedder?: Promise<Embedder>;
  #store?: Promise<MessageVectors>;
  /** The configured embedder's table, kept open for searches (it re-reads newer commits: see connect-store.ts). */
  #searchTable?: Promise<MessageVectorTable | undefined>;
  /** Other embedders' tables, listed at most once per `[vectors] read_consistency_ms`. */
  #others?: { at: number; ids: Promise<string[]> };
  #closed = false;
  /** The kept background statistics of the calibrated score, as searches read them. */
  readonly background: SearchBackground;

  constructor(
    readonly ctx: MemoryContext,
    private readonly factory: EmbedderFactory = (cfg) => createEmbedder(cfg),
    /** Whether the factory's embedder is local; by default, whether the config names the builtin one. */
    private readonly local?: boolean,
  ) {
    this.background = new SearchBackground(ctx);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether draining is cheap enough to do in the writing process (no network, no key). */
  get localEmbedder(): boolean {
    return this.local ?? this.ctx.config.embedder.provider === "builtin";
  }

  embedder(): Promise<Embedder> {
    this.#embedder ??= this.factory(this.ctx.config.embedder).catch((err) => {
      this.#embedder = undefined;
      throw err;
    });
    return this.#embedder;
  }

  store(): Promise<MessageVectors> {
    this.#store ??= Promise.resolve()
      .then(() => {
        // Connecting makes the home's vector folder: never for a home deleted or replaced under this process.
        checkDbInPlace(this.ctx.db);
        return openMessageVectors(vectorStoreLocation(this.ctx));
      })
      .catch((err) => {
        this.#store = undefined;
        throw err;
      });
    return this.#store;
  }

  /**
   * With a shared store, the configured embedder's id, so that its table is found by name even where the
   * store's listing misses it; none for the home's folder (its listing is exact) or when there is no embedder.
   */
  async embedderIds(): Promise<string[]> {
    if (!this.ctx.config.vectors.uri) return [];
    return this.embedder().then(
      (e) => [e.id],
      () => [],
    );
  }

  async table(create = false): Promise<MessageVectorTable | undefined> {
    const e = await this.embedder();
    return (await this.store()).table(e.id, e.dim, { create });
  }

  /** The configured embedder's table for reading, opened once and kept; undefined while it does not exist. */
  searchTable(): Promise<MessageVectorTable | undefined> {
    // No vector folder: no table, and a search makes none (nor the home, when it does not exist).
    if (!mayHoldVectors(this.ctx)) return Promise.resolve(undefined);
    const cached = this.#searchTable;
    if (cached) return cached.then((t) => t ?? this.openSearchTable());
    return this.openSearchTable();
  }

  private openSearchTable(): Promise<MessageVectorTable | undefined> {
    const p = this.table(false);
    this.#searchTable = p;
    p.then(
      (t) => {
        if (!t && this.#searchTable === p) this.#searchTable = undefined;
      },
      () => {
        if (this.#searchTable === p) this.#searchTable = undefined;
      },
    );
    return p;
  }

  /**
   * Forget the kept handles (the table was dropped or replaced, or a read through them failed). They are not
   * closed: a search may still be reading through them; the store's close releases them.
   */
  forgetTables(): void {
    this.#searchTable = undefined;
    this.#others = undefined;
  }

  private otherEmbedders(own: string): Promise<string[]> {
    if (!mayHoldVectors(this.ctx)) return Promise.resolve([]);
    const now = performance.now();
    const ttl = this.ctx.config.vectors.read_consistency_ms;
    if (!this.#others || now - this.#others.at >= ttl) {
      const ids = this.store().then(async (s) => (await s.tables()).map((t) => t.embedderId));
      this.#others = { at: now, ids };
      ids.catch(() => {
        if (this.#others?.ids === ids) this.#others = undefined;
      });
    }
    return this.#others.ids.then((ids) => ids.filter((id) => id !== own));
  }

  async status(session?: string): Promise<IndexStatus> {
    const e = await this.embedder();
    const [others, table] = await Promise.all([this.otherEmbedders(e.id), this.searchTable()]);
    const notIndexed = queuedCount(this.ctx.db, session);
    let missing = false;
    if (!table) missing = recentCount(this.ctx.db, session) > notIndexed;
    const status: IndexStatus = { notIndexed, reindexNeeded: others.length > 0 || missing, otherEmbedders: others };
    if (table) status.table = table;
    return status;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const kept = this.#searchTable;
    this.forgetTables();
    await kept?.then(
      (t) => t?.close(),
      () => {},
    );
    const store = this.#store;
    this.#store = undefined;
    if (store)
      await store.then(
        (s) => s.close(),
        () => {},
      );
  }
}
