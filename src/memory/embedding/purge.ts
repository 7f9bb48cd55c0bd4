// After a deletion (rm, reset, rm-message): apply the pending vector deletions now, under the vector write
// lock (.store/embed.lock, the drainer's lock), then drop older LanceDB versions and the files only they
// used, so removed rows remain in no version. A table an older memvoy filled with message text is
// rewritten once without it.
import { holdDeletionWait, tryVectorWriteLock } from "./vector-write-lock.ts";
import { applyDeletes, hasPendingDeletes } from "./drain.ts";
import type { SemanticIndex } from "./semantic-index.ts";
import { mayHoldVectors } from "../vector-location.ts";

export interface PurgeReport {
  /** Deletions applied to LanceDB now. */
  applied: number;
  /** Tables whose old versions were dropped. */
  tablesCleaned: number;
  /** Tables of an earlier memvoy whose data files keep the removed rows' vectors until reindex rebuilds them. */
  keptRemovedRows: number;
}

export async function purgeVectors(index: SemanticIndex, signal?: AbortSignal): Promise<PurgeReport> {
  const { ctx } = index;
  const report: PurgeReport = { applied: 0, tablesCleaned: 0, keptRemovedRows: 0 };
  if (!mayHoldVectors(ctx)) return report; // no vectors were ever written: nothing to load
  let release = await tryVectorWriteLock(ctx);
  if (!release) {
    const waiting = holdDeletionWait(ctx); // a lingering drain lets go (undefined: another deletion waits too)
    try {
      while (!release) {
        signal?.throwIfAborted();
        await Bun.sleep(50);
        release = await tryVectorWriteLock(ctx);
      }
    } finally {
      waiting?.();
    }
  }
  try {
    const store = await index.store();
    if (hasPendingDeletes(ctx.db)) report.applied = await applyDeletes(index, store);
    for (const info of await store.tables(await index.embedderIds())) {
      const t = await store.table(info.embedderId, 0);
      if (!t) continue;
      try {
        if ((await t.rowsWithText()) > 0) await t.dropText();
        await t.purgeOldVersions();
        report.tablesCleaned++;
        if (await t.keepsRemovedRows()) report.keptRemovedRows++;
      } finally {
        t.close();
      }
    }
  } finally {
    release();
  }
  return report;
}
