// Rebuild every vector with the configured embedder through the queue, so an interrupted run resumes.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tryLockFile } from "../../shared/file-lock.ts";
import {
  getEmbedState,
  makeQueueDue,
  queuedCount,
  refusedQueued,
  requeueRecent,
  setEmbedState,
} from "../../storage/sqlite/embed-queue-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { drainQueue, type DrainReport } from "./drain.ts";
import type { SemanticIndex } from "./semantic-index.ts";
import { refreshBackground } from "./background-stats.ts";
import { waitVectorWriteLock } from "./vector-write-lock.ts";
import { completeErrorVectors, restartErrorVectors } from "../error-memory/error-vectors.ts";
import { describeError } from "../../shared/describe-error.ts";

const TARGET = "reindex_target";
/** Held by a full reindex for its whole run, in the home's .store. */
const REINDEX_LOCK = "reindex.lock";

export interface ReindexOptions {
  signal?: AbortSignal;
  /** Only embed what is already queued (no rebuild). */
  pendingOnly?: boolean;
  /** See DrainOptions.lingerMs. */
  lingerMs?: number;
  /** Another reindex of this home runs: this one waits for it to end first (on a shared archive: who runs it). */
  onWait?: (holder?: string) => void;
  onStart?: (total: number, resumed: boolean) => void;
  onProgress?: (done: number, remaining: number) => void;
  /** See DrainOptions.onIndexBuild. */
  onIndexBuild?: (rows: number) => void;
}

export interface ReindexReport extends DrainReport {
  embedderId: string;
  resumed: boolean;
  /** Tables of other embedders dropped once the rebuild completed. */
  dropped: string[];
  /** It waited for another reindex of this home (which, unless interrupted, left only what was queued since). */
  waited: boolean;
  /** Error-memory records embedded by this run (a full reindex rebuilds their vectors too). */
  errorsEmbedded: number;
  /** Error-memory records the embedder refused on their own (absent when none): they stay without a vector. */
  errorsRefused?: { id: string; error: string }[];
}

export async function reindex(index: SemanticIndex, o: ReindexOptions = {}): Promise<ReindexReport> {
  if (!existsSync(index.ctx.paths.store)) return nothingToRebuild(index, o);
  if (o.pendingOnly) return rebuild(index, o, false);
  // One rebuild at a time: a second one waits for the first, then finds its work done (or resumes it).
  const path = join(index.ctx.paths.store, REINDEX_LOCK);
  let release = tryLockFile(path);
  const waited = !release;
  if (!release) o.onWait?.();
  while (!release) {
    o.signal?.throwIfAborted();
    await Bun.sleep(50);
    release = tryLockFile(path);
  }
  try {
    return await rebuild(index, o, waited);
  } finally {
    release();
  }
}

/**
 * A home that does not exist (read as an empty one) has no message or record to embed: the run answers as on an
 * empty home, the embedder checked as a rebuild checks it, and makes no folder (nor the home).
 */
async function nothingToRebuild(index: SemanticIndex, o: ReindexOptions): Promise<ReindexReport> {
  const embedder = await index.embedder();
  if (!o.pendingOnly && !embedder.local) await embedder.embed(["reindex"], o.signal, "document");
  o.onStart?.(0, false);
  const report = { busy: false, embedded: 0, deletesApplied: 0, failed: 0, remaining: 0 };
  return { ...report, embedderId: embedder.id, resumed: false, dropped: [], waited: false, errorsEmbedded: 0 };
}

async function rebuild(index: SemanticIndex, o: ReindexOptions, waited: boolean): Promise<ReindexReport> {
  const { db } = index.ctx;
  const embedder = await index.embedder();
  const store = await index.store();
  const target = getEmbedState(db, TARGET);
  const resumed = target === embedder.id;
  // The run waited for completed the rebuild for this same embedder: only what was queued since is left.
  const done =
    waited && !resumed && target === undefined && (await store.tables()).every((t) => t.embedderId === embedder.id);
  if (!o.pendingOnly && !resumed && !done) {
    // A server that is down, or refuses the key, must not cost the vectors it made: they are dropped only
    // once it answers (a local embedder cannot fail so).
    if (!embedder.local) await embedder.embed(["reindex"], o.signal, "document");
    // Rebuild from scratch for this embedder: its old vectors may come from an older builtin version. The
    // table is dropped under the vector write lock: a drain started by an earlier add may be writing to it.
    await underVectorLock(index, o.signal, async () => {
      await store.drop(embedder.id);
      index.forgetTables();
      // Error memory's vectors are rebuilt as well: their table may be damaged, gone, or another embedder's.
      await restartErrorVectors(index.ctx, embedder.id);
      withWriteLock(db, () => {
        requeueRecent(db);
        setEmbedState(db, TARGET, embedder.id);
      });
    });
  } else {
    withWriteLock(db, () => makeQueueDue(db));
  }
  o.onStart?.(queuedCount(db), resumed);
  const report = await drainQueue(index, {
    signal: o.signal,
    wait: !o.pendingOnly,
    onProgress: o.onProgress,
    onIndexBuild: o.onIndexBuild,
    lingerMs: o.lingerMs,
  });
  const dropped: string[] = [];
  let errorsEmbedded = 0;
  const errorsRefused: { id: string; error: string }[] = [];
  const rebuilding = getEmbedState(db, TARGET) === embedder.id;
  // Messages the embedder refuses on their own keep no vector, but do not hold the rebuild open for ever: every
  // other one was embedded, and the report names them.
  const complete = () => report.remaining <= refusedQueued(db).count && !report.error;
  if (rebuilding && complete()) {
    try {
      const errors = await completeErrorVectors(index.ctx, embedder, o.signal, (id, error) =>
        errorsRefused.push({ id, error }),
      );
      errorsEmbedded = errors.embedded;
      dropped.push(...errors.dropped);
    } catch (err) {
      if (o.signal?.aborted) throw err;
      // The rebuild stays open: the next reindex resumes it.
      report.error = `error memory: ${describeError(err)}`;
    }
  }
  if (rebuilding && complete()) {
    // Compaction racing a drain's upserts would conflict, as in the nightly maintenance.
    await underVectorLock(index, o.signal, async () => {
      for (const t of await store.tables()) {
        if (t.embedderId === embedder.id) continue;
        await store.drop(t.embedderId);
        if (!dropped.includes(t.embedderId)) dropped.push(t.embedderId);
      }
      // An older table LanceDB cannot open (whose embedder cannot be read) goes too.
      for (const d of await store.damagedTables()) {
        await store.dropTable(d.table);
        dropped.push(d.table);
      }
      index.forgetTables();
      const table = await index.table(true);
      await table!.maintain({ onIndexBuild: o.onIndexBuild });
      // The rebuilt table's own sample, whatever its size: the kept one may come from the vectors just replaced.
      await refreshBackground(index.ctx, table!, embedder, { force: true });
      withWriteLock(db, () => setEmbedState(db, TARGET, undefined));
    });
  }
  const out: ReindexReport = { ...report, embedderId: embedder.id, resumed, dropped, waited, errorsEmbedded };
  if (errorsRefused.length > 0) out.errorsRefused = errorsRefused;
  return out;
}

/** Run `work` holding the vector write lock, waiting for a drain that holds it (until `signal` aborts). */
async function underVectorLock(index: SemanticIndex, signal: AbortSignal | undefined, work: () => Promise<void>) {
  const release = await waitVectorWriteLock(index.ctx, { signal });
  signal?.throwIfAborted();
  try {
    await work();
  } finally {
    release?.();
  }
}
