// `stats` and `usage` in shared mode: the figures of the shared archive (PostgreSQL) and the shared vectors,
// in the embedded mode's shapes, plus what is shared by every host and what is this host's own.
import { describeError } from "../../shared/describe-error.ts";
import { NS_PER_DAY } from "../../shared/time.ts";
import { sessionDirs } from "../../memory/session-admin.ts";
import { diskBytes, statsReport, type StatsReport } from "../../memory/stats.ts";
import { dayStartOf } from "../../memory/summary/token-budget.ts";
import type { UsageReport } from "../../memory/usage-report.ts";
import { describeTarget } from "../../storage/postgres/pg-connect-error.ts";
import type { Config } from "../../config/schema.ts";
import type { SharedContext } from "./shared-context.ts";
import { sharedBudget } from "./shared-summaries.ts";

export interface SharedStatsReport extends StatsReport {
  /** What every host sharing the archive sees: where the archive and the vectors are. */
  shared: { archive: string; vectors: string; figures: string[] };
  /** What is this host's own: the per-session cache files. */
  local: { sessionCaches: number; bytes: number; figures: string[] };
  notes: string[];
}

export interface SharedUsageReport extends UsageReport {
  shared: { archive: string };
}

/** user@host:port/db of the configured archive (never its password). */
export const archiveTarget = (config: Config) => describeTarget(config.archive.url.trim());

export async function sharedStats(ctx: SharedContext): Promise<SharedStatsReport> {
  const { archive, paths } = ctx;
  const now = ctx.now();
  const [tiers, sessions, pending, errors, usage, dbBytes] = await Promise.all([
    archive.admin.tierCounts(),
    archive.listSessions(),
    archive.queuedCount(),
    archive.liveErrors({}, now, 0),
    archive.admin.usageSums(),
    archive.admin.databaseBytes(),
  ]);
  const notes: string[] = [];
  let vectors = Math.max(0, tiers.recent.messages - pending);
  try {
    const table = await ctx.vectors.table();
    vectors = table ? await table.count() : 0;
  } catch (err) {
    notes.push(`the shared vectors could not be counted (the figure is the archive's estimate): ${describeError(err)}`);
  }
  const caches = sessionDirs(ctx);
  const local = diskBytes(paths.sessions);
  const report = statsReport({
    home: paths.home,
    sessions: sessions.length,
    tiers,
    windowBytes: tiers.recent.bytes,
    vectors,
    pending,
    errors: errors.total,
    disk: { sessions: local, archive: dbBytes, vectors: 0 },
    usage,
  });
  return {
    ...report,
    shared: {
      archive: archiveTarget(ctx.config),
      vectors: ctx.config.vectors.uri,
      figures: ["sessions", "tiers", "errors", "tokens", "disk.archive"],
    },
    local: { sessionCaches: caches.length, bytes: local, figures: ["disk.sessions"] },
    notes,
  };
}

export async function sharedUsage(ctx: SharedContext, days: number): Promise<SharedUsageReport> {
  const since = dayStartOf(ctx.now()) - BigInt(Math.max(0, days - 1)) * NS_PER_DAY;
  const [rows, budget] = await Promise.all([ctx.archive.admin.usageByDay(since), sharedBudget(ctx)]);
  return { days, rows, budget, shared: { archive: archiveTarget(ctx.config) } };
}
