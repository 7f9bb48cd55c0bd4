// Archive upkeep: merge the FTS5 indexes (the keyword index, the substring index's tables) in small steps, then
// 'optimize' each (by then cheap), planner stats, WAL checkpoint; the quick integrity check doctor runs.
import type { Database } from "bun:sqlite";
import { trigramTables } from "./substring-index.ts";

export interface SqliteMaintenanceResult {
  mergeSteps: number;
  /** The longest single write (ms): what a concurrent writer may have waited. Readers never wait (WAL). */
  longestStepMs: number;
  ms: number;
  aborted: boolean;
}

export interface SqliteMaintenanceOptions {
  signal?: AbortSignal;
  /** Pages of merged data per step (FTS5 'merge' -N). */
  stepPages?: number;
  /** Pause between steps so other writers get the lock. */
  pauseMs?: number;
  maxSteps?: number;
  /**
   * Resolves once no other process holds the home's writer lock: awaited before each step, so that a long-lived
   * process (the daemon) waits for an import without blocking, instead of in SQLite's busy wait.
   */
  waitForWriters?: () => Promise<void>;
}

/** PRAGMA quick_check: the lines it reports, ["ok"] for a sound database. */
export function quickCheck(db: Database): string[] {
  return (db.query("PRAGMA quick_check").all() as { quick_check: string }[]).map((r) => r.quick_check);
}

/**
 * The FTS5 tables to merge and the pages a merge step of each writes: the substring index's write few, as a
 * step that drops rows compaction marked deleted reads many pages for each one it writes.
 */
function ftsTables(db: Database, pages: number): [string, number][] {
  return [["messages_fts", pages], ...trigramTables(db).map((t): [string, number] => [t, Math.min(pages, 4)])];
}

function totalChanges(db: Database): number {
  return Number((db.query("SELECT total_changes() AS c").get() as { c: bigint | number }).c);
}

export async function maintainSqlite(
  db: Database,
  options: SqliteMaintenanceOptions = {},
): Promise<SqliteMaintenanceResult> {
  const started = performance.now();
  const step = Math.max(1, options.stepPages ?? 64);
  const pause = options.pauseMs ?? 5;
  const maxSteps = options.maxSteps ?? 100_000;
  let steps = 0;
  let longest = 0;
  const timed = async (sql: string) => {
    await options.waitForWriters?.();
    const t = performance.now();
    db.run(sql);
    longest = Math.max(longest, performance.now() - t);
  };
  const aborted = () => ({ mergeSteps: steps, longestStepMs: longest, ms: performance.now() - started, aborted: true });
  // One 'optimize' rewrites the whole index in one transaction; merging first keeps every write short.
  // A merge did work when total_changes() moved by 2 or more (SQLite FTS5 documentation).
  for (const [table, pages] of ftsTables(db, step)) {
    while (steps < maxSteps) {
      if (options.signal?.aborted) return aborted();
      const before = totalChanges(db);
      await timed(`INSERT INTO ${table}(${table}, rank) VALUES('merge', -${pages})`);
      steps++;
      if (totalChanges(db) - before < 2) break;
      await Bun.sleep(pause);
    }
    if (options.signal?.aborted) return aborted();
    await timed(`INSERT INTO ${table}(${table}) VALUES('optimize')`);
  }
  await timed("PRAGMA optimize");
  db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  return { mergeSteps: steps, longestStepMs: longest, ms: performance.now() - started, aborted: false };
}
