// Rebuild every vector with the configured embedder through the queue, so an interrupted run resumes.
import {
  getEmbedState,
  makeQueueDue,
  queuedCount,
  requeueRecent,
  setEmbedState,
} from "../../storage/sqlite/embed-queue-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { drainQueue, type DrainReport } from "./drain.ts";
import type { SemanticIndex } from "./semantic-index.ts";
import { refreshBackground } from "./background-stats.ts";
import { waitVectorWriteLock } from "./vector-write-lock.ts";

const TARGET = "reindex_target";

export interface ReindexOptions {
  signal?: AbortSignal;
  /** Only embed what is already queued (no rebuild). */
  pendingOnly?: boolean;
  /** See DrainOptions.lingerMs. */
  lingerMs?: number;
  onStart?: (total: number, resumed: boolean) => void;
  onProgress?: (done: number, remaining: number) => void;
}

export interface ReindexReport extends DrainReport {
  embedderId: string;
  resumed: boolean;
  /** Tables of other embedders dropped once the rebuild completed. */
  dropped: string[];
}

export async function reindex(index: SemanticIndex, o: ReindexOptions = {}): Promise<ReindexReport> {
  const { db } = index.ctx;
  const embedder = await index.embedder();
  const store = await index.store();
  const target = getEmbedState(db, TARGET);
  const resumed = target === embedder.id;
  if (!o.pendingOnly && !resumed) {
    // A server that is down, or refuses the key, must not cost the vectors it made: they are dropped only
    // once it answers (a local embedder cannot fail so).
    if (!embedder.local) await embedder.embed(["reindex"], o.signal, "document");
    // Rebuild from scratch for this embedder: its old vectors may come from an older builtin version. The
    // table is dropped under the vector write lock: a drain started by an earlier add may be writing to it.
    await underVectorLock(index, o.signal, async () => {
      await store.drop(embedder.id);
      index.forgetTables();
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
    lingerMs: o.lingerMs,
  });
  const dropped: string[] = [];
  const rebuilding = getEmbedState(db, TARGET) === embedder.id;
  if (rebuilding && report.remaining === 0 && !report.error) {
    // Compaction racing a drain's upserts would conflict, as in the nightly maintenance.
    await underVectorLock(index, o.signal, async () => {
      for (const t of await store.tables()) {
        if (t.embedderId === embedder.id) continue;
        await store.drop(t.embedderId);
        dropped.push(t.embedderId);
      }
      // An older table LanceDB cannot open (whose embedder cannot be read) goes too.
      for (const d of await store.damagedTables()) {
        await store.dropTable(d.table);
        dropped.push(d.table);
      }
      index.forgetTables();
      const table = await index.table(true);
      await table!.maintain();
      // The rebuilt table's own sample, whatever its size: the kept one may come from the vectors just replaced.
      await refreshBackground(index.ctx, table!, embedder, { force: true });
      withWriteLock(db, () => setEmbedState(db, TARGET, undefined));
    });
  }
  return { ...report, embedderId: embedder.id, resumed, dropped };
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
