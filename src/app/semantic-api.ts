// The semantic tier as HomeMemory uses it: background drain after writes, semantic and hybrid search, reindex.
import { describeError } from "../shared/describe-error.ts";
import { MemvoyError } from "../shared/errors.ts";
import { createEmbedder } from "../embed/create-embedder.ts";
import type { MemoryContext } from "../memory/memory-context.ts";
import { drainQueue, hasPendingDeletes, type DrainOptions, type DrainReport } from "../memory/embedding/drain.ts";
import { DrainScheduler } from "../memory/embedding/drain-scheduler.ts";
import {
  dueCount,
  lastQueueError,
  nextTryAt,
  pendingVectorDeletes,
  queuedCount,
  refusedQueued,
} from "../storage/sqlite/embed-queue-repo.ts";
import { getMessagesBySeq, maxSeq } from "../storage/sqlite/messages-repo.ts";
import { holdRecentText } from "../storage/sqlite/recent-text-cache.ts";
import { reindex, type ReindexOptions, type ReindexReport } from "../memory/embedding/reindex.ts";
import { SemanticIndex } from "../memory/embedding/semantic-index.ts";
import { mayHoldVectors } from "../memory/vector-location.ts";
import { VectorTableDamagedError } from "../storage/lance/damaged-table.ts";
import type { Embedder } from "../embed/embedder.ts";
import { hybridSearch } from "../search/hybrid.ts";
import { semanticSearch, type SemanticOptions, type SemanticSource } from "../search/semantic.ts";
import type { SearchResult } from "../search/search-types.ts";
import { defaultMinScore } from "../search/relevance.ts";
import { spawnDetachedDrain } from "./background-drain.ts";
import { daemonLockHeld } from "./daemon-probe.ts";

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
  /** With nothing due: milliseconds until the first message deferred after a failed try is due again, absent otherwise. */
  nextTryInMs?: number;
}

/** Searches with a local embedder embed up to this many queued messages first. */
const SEARCH_DRAIN_LIMIT = 5_000;

/**
 * After the count of messages not indexed yet: the daemon embeds them (or its last try failed, and why), or what
 * to run for it.
 */
export function pendingStep(daemonLock: string, lastError: string | undefined): string {
  if (!daemonLockHeld(daemonLock)) return "run memvoy reindex --pending, or start the daemon (memvoy --daemon)";
  return lastError === undefined
    ? "the daemon is embedding them"
    : `the daemon embeds them, but the last try failed (${lastError}); see memvoy daemon status`;
}

/** How a front-end lets the search warm-up run. */
export interface WarmOptions {
  /** Awaited before each step of the warm-up (a front-end resolves it in a pause of its user's input). */
  idle?: () => Promise<void>;
}

export class SemanticApi {
  readonly index: SemanticIndex;
  readonly #scheduler: DrainScheduler;
  #warming?: Promise<void>;
  #closing = false;
  /** Stops the warm-up's search between its steps: on close, or once a real search starts (the user is here). */
  readonly #stopWarming = new AbortController();

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
    const now = this.ctx.now();
    const due = dueCount(db, now) + pendingVectorDeletes(db).length;
    const queued = queuedCount(db);
    // Looked up only when nothing is due: while something is, the next try is now.
    const next = due === 0 && queued > 0 ? nextTryAt(db, now) : undefined;
    return next === undefined ? { due, queued } : { due, queued, nextTryInMs: Number((next - now) / 1_000_000n) };
  }

  reindex(options: ReindexOptions = {}): Promise<ReindexReport> {
    return reindex(this.index, options);
  }

  /** A real search has started: the warm-up's own search stops at its next step, or does not start. */
  stopWarming(): void {
    this.#stopWarming.abort();
  }

  async search(match: "semantic" | "hybrid", o: SemanticOptions): Promise<SearchResult> {
    this.stopWarming();
    try {
      return await this.searchOnce(match, o);
    } catch (err) {
      // The kept table handle may point at a table another process dropped or rebuilt: reopen once.
      // (A table that reads as damaged through a kept handle may only have been replaced: it is reopened too.)
      if (o.signal?.aborted || (err instanceof MemvoyError && !(err instanceof VectorTableDamagedError))) throw err;
      this.index.forgetTables();
      return this.searchOnce(match, o);
    }
  }

  private async searchOnce(match: "semantic" | "hybrid", o: SemanticOptions): Promise<SearchResult> {
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
      // Nothing due: no drain (it would take the drain lock and open a write transaction for nothing).
      const { db } = this.ctx;
      if (dueCount(db, this.ctx.now()) > 0 || hasPendingDeletes(db)) {
        // A search reads what is indexed: a drain that cannot write (a full disk) leaves the rest queued, and the
        // result names the messages not indexed yet (a damaged table fails the search itself, below).
        const r = await drainQueue(this.index, { maxMessages: SEARCH_DRAIN_LIMIT }).catch(() => undefined);
        // The drainer a CLI writer started leaves when it finds this search holding the lock: what the search left
        // (past SEARCH_DRAIN_LIMIT) is handed to a new one, or it would wait for the next write.
        if (this.mode === "detached" && r && !r.busy && !r.error && dueCount(db, this.ctx.now()) > 0)
          this.scheduleDrain();
      }
    }
    const embedder = await this.index.embedder();
    const status = await this.index.status(session);
    const src: SemanticSource = {
      embedder,
      notIndexed: status.notIndexed,
      reindexNeeded: status.reindexNeeded,
      otherEmbedders: status.otherEmbedders,
      minScore: this.ctx.config.search?.min_score ?? defaultMinScore(embedder),
      background: async () => (status.table ? this.index.background.vectors(status.table, embedder) : []),
    };
    if (status.table) src.table = status.table;
    if (status.notIndexed > 0) {
      src.refused = refusedQueued(this.ctx.db, session);
      src.pendingStep = pendingStep(this.ctx.paths.daemonLock, lastQueueError(this.ctx.db));
    }
    return src;
  }

  /**
   * Load what a first semantic or hybrid search needs: a local embedder's word vectors
   * (and one query through it), the recent tier's text, LanceDB, the table (kept open), its background statistics
   * and, with a local embedder, one hybrid search. A home without vectors loads the embedder and the recent text
   * only. Never throws.
   */
  warmUp(o: WarmOptions = {}): Promise<void> {
    this.#warming ??= this.warm(o.idle);
    return this.#warming;
  }

  private async warm(idle?: () => Promise<void>): Promise<void> {
    // Each step blocks the event loop for a while: it starts when the front-end is idle (by default, at the next
    // turn of the event loop), and not once the memory is closing (which ends the wait too).
    const stop = this.#stopWarming.signal;
    const stopped = stop.aborted
      ? Promise.resolve()
      : new Promise<void>((resolve) => stop.addEventListener("abort", () => resolve(), { once: true }));
    const go = async () => {
      await Promise.race([idle ? idle() : new Promise((resolve) => setTimeout(resolve, 0)), stopped]);
      return !this.#closing && !stop.aborted;
    };
    try {
      if (!(await go())) return;
      const embedder = await this.index.embedder();
      if (!(await go())) return;
      const [qv] = embedder.local ? await embedder.embed(["warm up"], undefined, "query") : [];
      if (!(await go())) return;
      // A long-lived front-end searches again: the recent tier's text for substring matches is read now
      // (once the user searches, their second search reads it: this would only hold the keyboard up).
      holdRecentText(this.ctx.db);
      if (!mayHoldVectors(this.ctx) || !(await go())) return;
      const table = await this.index.searchTable();
      if (!table || this.#closing) return;
      await this.index.background.vectors(table, embedder);
      if (!qv || !(await go())) return;
      await table.search(qv, {}, 1);
      // A first search also compiles its statements, fills the index statistics and gets its code compiled:
      // one hybrid search on words of the newest message pays for that here (a local embedder costs nothing).
      if (!(await go())) return;
      const o = { query: warmQuery(this.ctx), limit: 50, now: this.ctx.now(), signal: this.#stopWarming.signal };
      await this.searchOnce("hybrid", o);
    } catch {
      // A first search reports whatever failed here.
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#stopWarming.abort();
    this.#scheduler.stop();
    // A table write (or a warm-up read) still in flight must end before its connection is closed under it.
    await this.#scheduler.idle();
    await this.#warming;
    await this.index.close();
  }
}

/** A few words of the newest message (words the index holds, so that every step of a search runs on rows). */
function warmQuery(ctx: MemoryContext): string {
  const [m] = getMessagesBySeq(ctx.db, [maxSeq(ctx.db)]);
  const words = m?.content.match(/\p{L}{3,}/gu)?.slice(0, 3) ?? [];
  return words.length ? words.join(" ") : "warm up";
}
