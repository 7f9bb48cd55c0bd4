// The daemon's side of a home: background upkeep that agents and library users never call. Not exported
// by the library; the daemon and its worker children type their jobs against this.
import type { Config } from "../config/schema.ts";
import type { EmbeddingBacklog } from "./semantic-api.ts";
import type { DrainOptions, DrainReport } from "../memory/embedding/drain.ts";
import type { MaintenanceReport, VectorMaintenance } from "../memory/maintenance.ts";
import type { SummarizeOptions, SummarizeReport } from "../memory/summary/summary-report.ts";
import type { SweepResult } from "../memory/error-memory/error-admin.ts";
import type { UsageReport } from "../memory/usage-report.ts";
import type { IndexUpgradeOptions, IndexUpgradeResult, IndexUpgradeState } from "../memory/index-upgrade.ts";

export interface HomeInfo {
  home: string;
  /** provider[:model] of the configured embedder. */
  embedder: string;
  maxMessageBytes: number;
}

/** The HomeInfo of a home and its config. */
export function homeInfo(home: string, config: Config): HomeInfo {
  const e = config.embedder;
  return {
    home,
    embedder: e.provider + (e.model ? `:${e.model}` : ""),
    maxMessageBytes: config.limits.max_message_bytes,
  };
}

/** What the summary cron needs of a memory: the embedded home, or the shared one. */
export interface SummaryCronApi {
  /** Sessions the summary cron should run now. */
  dueSessions(): string[] | Promise<string[]>;
  /** Today's tokens against [summary] daily_token_budget (the cron waits once it is spent). */
  dailyBudget(): UsageReport["budget"] | Promise<UsageReport["budget"]>;
  summarize(session?: string, options?: SummarizeOptions): Promise<SummarizeReport>;
}

export interface MaintenanceApi extends SummaryCronApi {
  readonly home: string;
  /** Embed queued messages now. One drainer per home at a time. */
  drainEmbeddings(options?: DrainOptions): Promise<DrainReport>;
  /** The embedding queue as the archive sees it, without loading LanceDB. */
  embeddingBacklog(): EmbeddingBacklog;
  /** Nightly upkeep: FTS5 merge + optimize, LanceDB compaction and index build. */
  maintain(options?: { signal?: AbortSignal; vectors?: boolean }): Promise<MaintenanceReport>;
  maintainVectors(options?: { signal?: AbortSignal }): Promise<VectorMaintenance>;
  /** Delete expired error records and their vectors. */
  sweepErrors(): Promise<SweepResult>;
  embedPendingErrors(options?: { max?: number }): Promise<{ embedded: number; pending: number }>;
  dueSessions(): string[];
  dailyBudget(): UsageReport["budget"];
  /** LLM token usage by day, and today against [summary] daily_token_budget. */
  usage(options?: { days?: number }): UsageReport;
  /** Whether the keyword index carries the session column yet. */
  indexUpgrade(): IndexUpgradeState;
  /** Build the keyword index with a session column in short steps; resumes a stopped run. */
  upgradeIndex(options?: IndexUpgradeOptions): Promise<IndexUpgradeResult>;
}
