// Nightly upkeep of the tiers: an index build left unfinished (an import killed before its end, an upgrade
// stopped) is finished first; then the archive's FTS5 index (short merge steps, then optimize) and the message
// vectors (LanceDB compaction, old versions dropped, the vector index built or refreshed, the background
// statistics of the calibrated score re-sampled when the table changed enough). Searches never
// wait: SQLite readers run beside the writer (WAL) and LanceDB readers see the previous version.
import { describeError } from "../shared/describe-error.ts";
import { waitVectorWriteLock } from "./embedding/vector-write-lock.ts";
import { maintainSqlite, type SqliteMaintenanceResult } from "../storage/sqlite/maintenance.ts";
import type { SemanticIndex } from "./embedding/semantic-index.ts";
import { refreshBackground } from "./embedding/background-stats.ts";
import type { MemoryContext } from "./memory-context.ts";
import { homeLockFree } from "./home-lock.ts";
import { mayHoldVectors } from "./vector-location.ts";
import { indexUpgradeState, upgradeIndex, type IndexUpgradeResult } from "./index-upgrade.ts";

/** How long to wait for a running embedding drain to let go of the vector table. */
const DRAIN_LOCK_WAIT_MS = 60_000;

export interface VectorMaintenance {
  /** false: no vector table yet, the drain kept it busy, or the step failed (see note). */
  done: boolean;
  rows?: number;
  indexed?: boolean;
  /** The background statistics of the calibrated score were re-sampled. */
  backgroundRefreshed?: boolean;
  ms: number;
  note?: string;
}

export interface MaintenanceReport {
  /** Set when an index build was left unfinished: what finishing it did. */
  indexUpgrade?: IndexUpgradeResult;
  archive: SqliteMaintenanceResult;
  vectors: VectorMaintenance;
}

export async function maintainVectors(
  ctx: MemoryContext,
  index: SemanticIndex,
  signal?: AbortSignal,
): Promise<VectorMaintenance> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  if (!mayHoldVectors(ctx)) return { done: false, ms: ms(), note: "no vector store yet" };
  // Compaction racing the drain's upserts would conflict: hold the drain lock meanwhile (drains skip, searches do not wait).
  const release = await waitVectorWriteLock(ctx, { signal, waitMs: DRAIN_LOCK_WAIT_MS, pollMs: 200 });
  if (!release)
    return { done: false, ms: ms(), note: signal?.aborted ? "stopped" : "the embedding drain kept the table busy" };
  try {
    const table = await index.table(false);
    if (!table) return { done: false, ms: ms(), note: "no vector table for the configured embedder yet" };
    try {
      const r = await table.maintain();
      const backgroundRefreshed = await refreshBackground(ctx, table, await index.embedder());
      return { done: true, rows: r.rows, indexed: r.indexed, backgroundRefreshed, ms: ms() };
    } finally {
      table.close();
    }
  } catch (err) {
    return { done: false, ms: ms(), note: `vector upkeep failed: ${describeError(err)}` };
  } finally {
    release();
  }
}

export async function maintainTiers(
  ctx: MemoryContext,
  options: { signal?: AbortSignal; vectors?: SemanticIndex } = {},
): Promise<MaintenanceReport> {
  const indexUpgrade = indexUpgradeState(ctx).done ? undefined : await upgradeIndex(ctx, { signal: options.signal });
  const archive = await maintainSqlite(ctx.db, { signal: options.signal, waitForWriters: () => homeLockFree(ctx) });
  const vectors =
    options.vectors && !options.signal?.aborted
      ? await maintainVectors(ctx, options.vectors, options.signal)
      : { done: false, ms: 0, note: options.vectors ? "stopped" : "no vector index" };
  return { ...(indexUpgrade && { indexUpgrade }), archive, vectors };
}
