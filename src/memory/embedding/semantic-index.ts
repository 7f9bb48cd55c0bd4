// The semantic tier of one home: the configured embedder and the LanceDB store, both opened on first use.
import { createEmbedder } from "../../embed/create-embedder.ts";
import type { Embedder } from "../../embed/embedder.ts";
import { queuedCount, recentCount } from "../../storage/sqlite/embed-queue-repo.ts";
import { openMessageVectors, type MessageVectors, type MessageVectorTable } from "../../storage/ports/vector-port.ts";
import { vectorStoreLocation } from "../vector-location.ts";
import type { MemoryContext } from "../memory-context.ts";

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
  #closed = false;

  constructor(
    readonly ctx: MemoryContext,
    private readonly factory: EmbedderFactory = (cfg) => createEmbedder(cfg),
    /** Whether the factory's embedder is local; by default, whether the config names the builtin one. */
    private readonly local?: boolean,
  ) {}

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
      .then(() => openMessageVectors(vectorStoreLocation(this.ctx)))
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

  async status(session?: string): Promise<IndexStatus> {
    const e = await this.embedder();
    const store = await this.store();
    const others = (await store.tables()).map((t) => t.embedderId).filter((id) => id !== e.id);
    const table = await store.table(e.id, e.dim);
    const notIndexed = queuedCount(this.ctx.db, session);
    let missing = false;
    if (!table) missing = recentCount(this.ctx.db, session) > notIndexed;
    const status: IndexStatus = { notIndexed, reindexNeeded: others.length > 0 || missing, otherEmbedders: others };
    if (table) status.table = table;
    return status;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const store = this.#store;
    this.#store = undefined;
    if (store)
      await store.then(
        (s) => s.close(),
        () => {},
      );
  }
}
