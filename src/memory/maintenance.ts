// Nightly upkeep of the tiers: the archive's FTS5 index and SQLite housekeeping (short writes, searches never wait).
import { maintainSqlite, type SqliteMaintenanceResult } from "../storage/sqlite/maintenance.ts";
import type { MemoryContext } from "./memory-context.ts";

export interface MaintenanceReport {
  archive: SqliteMaintenanceResult;
}

export async function maintainTiers(ctx: MemoryContext, options: { signal?: AbortSignal } = {}): Promise<MaintenanceReport> {
  const archive = await maintainSqlite(ctx.db, { signal: options.signal });
  return { archive };
}
