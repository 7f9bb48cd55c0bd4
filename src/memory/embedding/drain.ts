// Drains the embedding queue: apply pending vector deletions, then embed queued messages in batches and
// upsert them. One drainer per home at a time (.store/embed.lock); failures back off per message.
import { describeError } from "../../shared/describe-error.ts";
import { deletionWaiting, tryVectorWriteLock } from "./vector-write-lock.ts";
import { ensureDirIn } from "../../shared/atomic-write.ts";
import { checkDbInPlace } from "../../storage/sqlite/db-in-place.ts";
import { NS_PER_SEC } from "../../shared/time.ts";
import {
  EmbedderConfigError,
  EmbedderRejectedError,
  EmbedderResponseError,
  type Embedder,
} from "../../embed/embedder.ts";
import {
  clearVectorDeletes,
  clearVectorIdDeletes,
  pendingVectorIdDeletes,
  deferQueued,
  dequeue,
  dueCount,
  dueMessages,
  getEmbedState,
  pendingVectorDeletes,
  pruneQueue,
  recentIdsAmong,
  heldIdsAmong,
  queuedCount,
  refusedError,
  setEmbedState,
  stillQueued,
  type QueuedMessage,
} from "../../storage/sqlite/embed-queue-repo.ts";
import type {
  MessageVectors as VectorStore,
  MessageVectorTable as VectorTable,
  VectorRow,
} from "../../storage/ports/vector-port.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import type { SemanticIndex } from "./semantic-index.ts";
import { dropKeptBackgrounds, refreshBackground } from "./background-stats.ts";

/** Share of the previous message's vector mixed into a local embedder's vector (measured on LoCoMo dev). */
export const CONTEXT_WEIGHT = 0.3;
/**
 * Compact after this many upserted rows, or a quarter of the table if larger: small fragments slow
 * searches down, and the growing step keeps a large backfill's total compaction work linear.
 */
const MAINTAIN_EVERY_ROWS = 5_000;
const MAINTAIN_SHARE = 0.25;
const LINGER_POLL_MS = 150;
const DELETION_POLL_MS = 100;
const MAX_RETRY_DELAY = 3600n * NS_PER_SEC;

export interface DrainOptions {
  signal?: AbortSignal;
  /** Wait for another drainer to finish instead of returning at once. */
  wait?: boolean;
  onProgress?: (done: number, remaining: number) => void;
  /** Stop after about this many messages (the rest stays queued). */
  maxMessages?: number;
  /** Keep the lock and watch the queue this long after it empties (absorbs a burst of writes). */
  lingerMs?: number;
  /** Called before the vector index is built over `rows` vectors: minutes on a large table, past `signal`'s reach. */
  onIndexBuild?: (rows: number) => void;
}

/** A message the embedder refused on its own (too long, characters it does not take): it stays without a vector. */
export interface RefusedMessage {
  id: string;
  session: string;
  error: string;
}

export interface DrainReport {
  /** Another process or task holds the drain lock; nothing was done. */
  busy: boolean;
  embedded: number;
  deletesApplied: number;
  /** Messages whose embedding failed in this run (they stay queued with a back-off), those refused included. */
  failed: number;
  /** Of those, the messages the embedder refused on its own while it embedded others (absent when none). */
  refused?: RefusedMessage[];
  remaining: number;
  error?: string;
  /** The error needs the setup fixed (a missing key): exit 2, as for every such error. */
  configError?: true;
  /** Set when this drain built the ANN index (the table grew past ANN_MIN_ROWS). */
  indexBuildMs?: number;
  /** The lock was let go to a deletion waiting for it (deletionWaiting), with work maybe left. */
  yielded?: true;
}

export const retryDelay = (attempts: number): bigint => {
  const d = 5n * NS_PER_SEC * 2n ** BigInt(Math.min(attempts - 1, 20));
  return d > MAX_RETRY_DELAY ? MAX_RETRY_DELAY : d;
};

export async function drainQueue(index: SemanticIndex, options: DrainOptions = {}): Promise<DrainReport> {
  const total: DrainReport = { busy: false, embedded: 0, deletesApplied: 0, failed: 0, remaining: 0 };
  let yielded = false;
  for (let round = 0; ; round++) {
    const left = options.maxMessages === undefined ? undefined : options.maxMessages - total.embedded;
    // After letting a deletion have the lock, wait to take it back: the messages are still this drain's to embed.
    const wait = (round === 0 && options.wait) || yielded;
    const r = await drainLocked(index, { ...options, maxMessages: left, wait });
    yielded = r.yielded === true;
    if (round === 0) total.busy = r.busy;
    total.embedded += r.embedded;
    total.deletesApplied += r.deletesApplied;
    total.failed += r.failed;
    if (r.refused) (total.refused ??= []).push(...r.refused);
    total.remaining = r.remaining;
    if (r.error !== undefined) total.error = r.error;
    if (r.configError) total.configError = true;
    if (r.indexBuildMs !== undefined) total.indexBuildMs = r.indexBuildMs;
    // A writer that found the lock held relies on the holder to take its messages: look again after release.
    if (yielded && !index.closed) continue;
    if (r.busy || r.error !== undefined || index.closed || (left !== undefined && r.embedded >= left)) break;
    if (dueCount(index.ctx.db, index.ctx.now()) === 0 && !hasPendingDeletes(index.ctx.db)) break;
  }
  return total;
}

async function drainLocked(index: SemanticIndex, options: DrainOptions): Promise<DrainReport> {
  const { ctx } = index;
  // A home (or its .store) deleted or replaced under this process is refused, never made again.
  if (!checkDbInPlace(ctx.db)) ensureDirIn(ctx.paths.store);
  // A waiting deletion goes first: a drain that let go to it would else take the lock straight back, round after round.
  let release = deletionWaiting(ctx) ? undefined : await tryVectorWriteLock(ctx);
  while (!release && options.wait) {
    await Bun.sleep(50);
    options.signal?.throwIfAborted();
    if (!deletionWaiting(ctx)) release = await tryVectorWriteLock(ctx);
  }
  const report: DrainReport = { busy: !release, embedded: 0, deletesApplied: 0, failed: 0, remaining: 0 };
  if (!release) return report;
  try {
    const embedder = await index.embedder();
    const store = await index.store();
    const batchSize = embedder.local ? 512 : Math.max(ctx.config.embedder.batch_size, 1) * 4;
    let table: VectorTable | undefined;
    let idleSince: number | undefined;
    withWriteLock(ctx.db, () => pruneQueue(ctx.db));
    for (;;) {
      if (index.closed) break;
      options.signal?.throwIfAborted();
      if (deletionWaiting(ctx)) {
        report.yielded = true;
        break;
      }
      report.deletesApplied += await applyDeletes(index, store);
      const batch = dueMessages(ctx.db, ctx.now(), batchSize);
      if (batch.length === 0) {
        idleSince ??= performance.now();
        if (!options.lingerMs || performance.now() - idleSince >= options.lingerMs) break;
        await Bun.sleep(LINGER_POLL_MS);
        continue;
      }
      idleSince = undefined;
      if (options.maxMessages !== undefined && report.embedded >= options.maxMessages) break;
      const watch = watchDeletions(ctx, options.signal);
      let embedded: Awaited<ReturnType<typeof embedQueued>>;
      try {
        embedded = await embedQueued(embedder, batch, watch.signal);
      } catch (err) {
        if (!watch.deletionWaits) throw err;
        report.yielded = true; // the batch stays queued as it was, for the next round
        break;
      } finally {
        watch.stop();
      }
      const { done, failed, refused, error } = embedded;
      if (embedded.configError) report.configError = true;
      if (refused.length > 0) {
        withWriteLock(ctx.db, () => {
          for (const r of refused) deferQueued(ctx.db, [r.q.message.seq], refusedError(r.error), ctx.now(), retryDelay);
        });
        report.failed += refused.length;
        const named = refused.map(({ q, error }) => ({ id: q.message.id, session: q.message.session, error }));
        (report.refused ??= []).push(...named);
      }
      if (failed.length > 0) {
        const seqs = failed.map((q) => q.message.seq);
        withWriteLock(ctx.db, () => deferQueued(ctx.db, seqs, error!, ctx.now(), retryDelay));
        report.failed += failed.length;
        report.error = error;
        if (done.length === 0) break;
      }
      // A batch of messages refused one by one: the next batch goes on (they wait for their next try).
      if (done.length === 0) continue;
      // LanceDB makes the folders it writes into: a home deleted while the batch was embedded must stay deleted.
      checkDbInPlace(ctx.db);
      table ??= await store.table(embedder.id, embedder.dim, { create: true });
      const live = stillQueued(
        ctx.db,
        done.map((d) => d.q.message),
      );
      const rows: VectorRow[] = [];
      for (const { q, vector } of done) {
        const m = q.message;
        // No message text in LanceDB: the archive holds it, and a deletion then leaves no copy in vector files.
        if (live.has(m.seq))
          rows.push({ id: m.id, seq: m.seq, session: m.session, sendAt: m.sendAt, role: m.role, content: "", vector });
      }
      await table!.upsert(rows);
      withWriteLock(ctx.db, () => dequeue(ctx.db, rows));
      report.embedded += rows.length;
      await maybeMaintain(index, table!, rows.length);
      options.onProgress?.(report.embedded, queuedCount(ctx.db));
    }
    // A reset or compaction that raced with the last upsert left its deletion for us: apply it now.
    if (!index.closed) report.deletesApplied += await applyDeletes(index, store);
    if (table && report.embedded > 0 && !index.closed) {
      const started = performance.now();
      if (await table.ensureIndex(undefined, options.onIndexBuild))
        report.indexBuildMs = Math.round(performance.now() - started);
      // Searches read the kept background: re-sample it here, off their path, once the table outgrew it.
      await refreshBackground(ctx, table, embedder, { onlyIfKept: true }).catch(() => {});
    }
  } finally {
    release();
  }
  if (!index.closed) report.remaining = queuedCount(ctx.db);
  return report;
}

/**
 * Aborts a batch's embedding when a deletion starts waiting for the lock: a rate-limited or slow server would
 * else hold rm, reset and rm-message for as long as its retries last (Retry-After, up to minutes).
 */
function watchDeletions(ctx: SemanticIndex["ctx"], outer?: AbortSignal) {
  const abort = new AbortController();
  const timer = setInterval(() => {
    if (deletionWaiting(ctx)) abort.abort(new Error("a deletion waits for the vector write lock"));
  }, DELETION_POLL_MS);
  return {
    signal: outer ? AbortSignal.any([outer, abort.signal]) : abort.signal,
    get deletionWaits() {
      return abort.signal.aborted && !outer?.aborted;
    },
    stop: () => clearInterval(timer),
  };
}

export function hasPendingDeletes(db: SemanticIndex["ctx"]["db"]): boolean {
  return pendingVectorDeletes(db).length > 0 || pendingVectorIdDeletes(db).length > 0;
}

/**
 * Apply every pending (session, seq < X) deletion and every deletion by id to every embedder's table, then
 * forget them. Rows whose message is still in the recent tier are kept: seqs freed by deleted rows may
 * have been reused since. Call with the drain lock (the vector write lock) held.
 */
export async function applyDeletes(index: SemanticIndex, store: VectorStore): Promise<number> {
  const { db } = index.ctx;
  const pending = pendingVectorDeletes(db);
  const byId = pendingVectorIdDeletes(db);
  if (pending.length === 0 && byId.length === 0) return 0;
  for (const info of await store.tables(await index.embedderIds())) {
    const t = await store.table(info.embedderId, 0);
    if (!t) continue;
    const ids = [...byId];
    for (const d of pending) {
      const before = await t.idsBefore(d.session, d.beforeSeq);
      const keep = recentIdsAmong(db, before);
      ids.push(...before.filter((id) => !keep.has(id)));
    }
    // Rows of removed messages (rm, reset, rm-message) leave the table's files too; those of messages the archive
    // still holds (moved out of the recent tier) need not, and rewriting a fragment for them would cost as much.
    const held = heldIdsAmong(db, ids);
    await t.deleteIds(ids.filter((id) => held.has(id)));
    await t.deleteIds(
      ids.filter((id) => !held.has(id)),
      { scrub: true },
    );
    t.close();
  }
  // A kept background may hold a sampled vector of a removed row.
  dropKeptBackgrounds(index.ctx);
  withWriteLock(db, () => {
    if (pending.length > 0) clearVectorDeletes(db, pending[pending.length - 1]!.id);
    clearVectorIdDeletes(db, byId);
  });
  return pending.length + byId.length;
}

/**
 * Embed a batch; when the server refuses it as bad input, embed its messages one at a time so that one
 * bad message does not hold the others back. Those the server refuses on their own come back as `refused`, each
 * with its error; `failed` are left for a later drain (the server failing, or refusing everything), with `error`.
 */
export async function embedQueued(
  embedder: Embedder,
  batch: readonly QueuedMessage[],
  signal?: AbortSignal,
): Promise<{
  done: { q: QueuedMessage; vector: Float32Array }[];
  failed: QueuedMessage[];
  refused: { q: QueuedMessage; error: string }[];
  error?: string;
  configError?: true;
}> {
  try {
    const vectors = await embedBatch(embedder, batch, signal);
    return { done: batch.map((q, i) => ({ q, vector: vectors[i]! })), failed: [], refused: [] };
  } catch (err) {
    signal?.throwIfAborted();
    if (!inputRefused(err)) {
      const failed = { done: [], failed: [...batch], refused: [], error: describeError(err) };
      return err instanceof EmbedderConfigError ? { ...failed, configError: true } : failed;
    }
    if (batch.length === 1) return { done: [], failed: [], refused: [{ q: batch[0]!, error: describeError(err) }] };
  }
  const done: { q: QueuedMessage; vector: Float32Array }[] = [];
  const refused: { q: QueuedMessage; error: string }[] = [];
  let takesText = false;
  for (const [i, q] of batch.entries()) {
    try {
      done.push({ q, vector: (await embedBatch(embedder, [q], signal))[0]! });
    } catch (err) {
      signal?.throwIfAborted();
      const error = describeError(err);
      // The server itself is failing, or refuses everything: leave the rest for a later drain.
      if (!inputRefused(err)) return { done, failed: batch.slice(i), refused, error };
      // Three refused in a row, none embedded: whether it takes any text at all says which.
      if (done.length === 0 && refused.length >= 2 && !takesText && !(takesText = await embedsText(embedder, signal)))
        return { done, failed: [...refused.map((r) => r.q), ...batch.slice(i)], refused: [], error };
      refused.push({ q, error });
    }
  }
  return { done, failed: [], refused };
}

/** Whether the embedder embeds a plain word: a server that refuses every input does not. */
export async function embedsText(embedder: Embedder, signal?: AbortSignal): Promise<boolean> {
  try {
    await embedder.embed(["reindex"], signal, "document");
    return true;
  } catch {
    signal?.throwIfAborted();
    return false;
  }
}

/**
 * A refusal that may be about one input (too long, bad characters) rather than the request as a whole, or an
 * answer whose vector for one input is all zeros.
 */
export function inputRefused(err: unknown): boolean {
  if (err instanceof EmbedderResponseError) return err.data.problem === "malformed" && err.data.zeros === true;
  return err instanceof EmbedderRejectedError && [400, 413, 422].includes(err.status);
}

/** Embed each message; a local embedder's vector also carries CONTEXT_WEIGHT of the previous message's. */
async function embedBatch(
  embedder: Embedder,
  batch: readonly QueuedMessage[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const own = await embedder.embed(
    batch.map((q) => q.message.content),
    signal,
    "document",
  );
  if (!embedder.local) return own;
  const bySeq = new Map(batch.map((q, i) => [q.message.seq, i]));
  const missing: string[] = [];
  const prevIndex = batch.map((q) => {
    if (q.previous === undefined) return -1;
    const inBatch = bySeq.get(q.message.seq - 1n);
    if (inBatch !== undefined && batch[inBatch]!.message.session === q.message.session) return inBatch;
    missing.push(q.previous);
    return batch.length + missing.length - 1;
  });
  const extra = missing.length ? await embedder.embed(missing, signal, "document") : [];
  const all = own.concat(extra);
  return own.map((v, i) => {
    const p = prevIndex[i]!;
    if (p < 0) return v;
    const prev = all[p]!;
    const out = new Float32Array(v.length);
    let s = 0;
    for (let d = 0; d < v.length; d++) {
      out[d] = v[d]! + CONTEXT_WEIGHT * prev[d]!;
      s += out[d]! * out[d]!;
    }
    const k = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let d = 0; d < v.length; d++) out[d]! *= k;
    return out;
  });
}

async function maybeMaintain(index: SemanticIndex, table: VectorTable, written: number): Promise<void> {
  const { db } = index.ctx;
  const pending = Number(getEmbedState(db, "rows_since_maintain") ?? "0") + written;
  const total = Number(getEmbedState(db, "rows_at_maintain") ?? "0");
  if (pending < Math.max(MAINTAIN_EVERY_ROWS, total * MAINTAIN_SHARE)) {
    withWriteLock(db, () => setEmbedState(db, "rows_since_maintain", String(pending)));
    return;
  }
  await table.compact();
  const rows = await table.count();
  withWriteLock(db, () => {
    setEmbedState(db, "rows_since_maintain", "0");
    setEmbedState(db, "rows_at_maintain", String(rows));
  });
}
