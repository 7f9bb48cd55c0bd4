// The semantic tier as HomeMemory uses it: background drain after writes, semantic and hybrid search, reindex.
import { describeError } from "../shared/describe-error.ts";
import { createEmbedder } from "../embed/create-embedder.ts";
import type { MemoryContext } from "../memory/memory-context.ts";
import { drainQueue, type DrainOptions, type DrainReport } from "../memory/embedding/drain.ts";
import { DrainScheduler } from "../memory/embedding/drain-scheduler.ts";
import { dueCount, pendingVectorDeletes, queuedCount } from "../storage/sqlite/embed-queue-repo.ts";
import { reindex, type ReindexOptions, type ReindexReport } from "../memory/embedding/reindex.ts";
import { SemanticIndex } from "../memory/embedding/semantic-index.ts";
import type { Embedder } from "../embed/embedder.ts";
import { hybridSearch } from "../search/hybrid.ts";
import { semanticSearch, type SemanticOptions, type SemanticSource } from "../search/semantic.ts";
import type { SearchResult } from "../search/search-types.ts";
import { defaultMinScore } from "../search/relevance.ts";
import { spawnDetachedDrain } from "./background-drain.ts";

/**
 * Where queued embeddings are drained after a write, when the embedder is local (builtin):
 * in-process (long-lived processes: library, TUI, daemon), detached (the CLI: a child process, so the
 * writer never loads LanceDB), or off. HTTP embedders are drained by the daemon and `memvoy reindex`.
 */
export type DrainMode = "in-process" | "detached" | "off";

export interface SemanticTierOptions {
  drain?: DrainMode;
  /** Use this embedder instead of the configured one. */
  embedder?: Embedder;
}

export interface EmbeddingBacklog {
  /** Queued messages due now plus pending vector deletions: what a drain would do at once. */
  due: number;
  /** Recent messages waiting for a vector (deferred ones included). */
  queued: number;
}

/** Searches with a local embedder embed up to this many queued messages first. */
const SEARCH_DRAIN_LIMIT = 5_000;

export class SemanticApi {
  readonly index: SemanticIndex;
  readonly #scheduler: DrainScheduler;

  private readonly mode: DrainMode;

  constructor(
    private readonly ctx: MemoryContext,
    options: SemanticTierOptions = {},
  ) {
    this.mode = options.drain ?? "in-process";
    const given = options.embedder;
    this.index = given
      ? new SemanticIndex(ctx, async () => given, given.local)
      : new SemanticIndex(ctx, (cfg) => createEmbedder(cfg, { env: ctx.env ?? process.env }));
    this.#scheduler = new DrainScheduler(this.index);
  }

  /** After a write: start draining in the background when that is cheap. Never throws, never waits. */
  scheduleDrain(): void {
    if (this.mode === "off" || !this.index.localEmbedder) return;
    try {
      if (this.mode === "detached") spawnDetachedDrain(this.ctx.paths);
      else this.#scheduler.schedule();
    } catch {
      // Background work must never fail a write; the queue keeps the messages for the next drainer.
    }
  }

  /** Wait for the in-process background drain (if any) to finish; returns its last error, if any. */
  async flush(): Promise<unknown> {
    await this.#scheduler.idle();
    return this.#scheduler.lastError;
  }

  drain(options: DrainOptions = {}): Promise<DrainReport> {
    return drainQueue(this.index, options);
  }

  backlog(): EmbeddingBacklog {
    const { db } = this.ctx;
    return { due: dueCount(db, this.ctx.now()) + pendingVectorDeletes(db).length, queued: queuedCount(db) };
  }

  reindex(options: ReindexOptions = {}): Promise<ReindexReport> {
    return reindex(this.index, options);
  }

  async search(match: "semantic" | "hybrid", o: SemanticOptions): Promise<SearchResult> {
    if (match === "semantic") return semanticSearch(this.ctx.db, await this.source(o.session), o);
    let src: SemanticSource | { unavailable: string };
    try {
      src = await this.source(o.session);
    } catch (err) {
      src = { unavailable: describeError(err) };
    }
    return hybridSearch(this.ctx.db, src, o);
  }

  async source(session?: string): Promise<SemanticSource> {
    if (this.index.localEmbedder && this.mode !== "off") {
      await this.#scheduler.idle();
      await drainQueue(this.index, { maxMessages: SEARCH_DRAIN_LIMIT });
    }
    const embedder = await this.index.embedder();
    const status = await this.index.status(session);
    const src: SemanticSource = {
      embedder,
      notIndexed: status.notIndexed,
      reindexNeeded: status.reindexNeeded,
      otherEmbedders: status.otherEmbedders,
      minScore: this.ctx.config.search?.min_score ?? defaultMinScore(embedder),
    };
    if (status.table) src.table = status.table;
    return src;
  }

  async close(): Promise<void> {
    this.#scheduler.stop();
    // A table write still in flight must end before its connection is closed under it.
    await this.#scheduler.idle();
    await this.index.close();
  }
}
