// What the administration commands read of a shared archive: counts per tier, token usage, live leases,
// the schema version, and a cheap stamp that changes whenever another host writes.
import type { TierCount } from "../sqlite/stats-queries.ts";
import type { UsageByDay, UsageSum } from "./usage-rows.ts";

export type { TierCount, UsageByDay, UsageSum };

/** A lease row as stored, expired or not, with the server's clock at the time of the read (ns). */
export interface LeaseRow {
  job: string;
  session: string;
  holder: string;
  expiresAt: bigint;
  serverNow: bigint;
}

export interface ArchiveAdminPort {
  /** Messages and text bytes in the recent tier and only in the archive. */
  tierCounts(): Promise<{ recent: TierCount; archived: TierCount }>;
  /** LLM tokens spent, per purpose and model, over the whole archive. */
  usageSums(): Promise<UsageSum[]>;
  usageByDay(since: bigint): Promise<UsageByDay[]>;
  /** Bytes the archive's database takes on its server. */
  databaseBytes(): Promise<number>;
  /** Every lease row, expired ones included. */
  leases(): Promise<LeaseRow[]>;
  /** End a lease whatever its holder (doctor --repair on a lease no holder could have taken for so long). */
  expireLease(job: string, session: string): Promise<void>;
  /** The schema version the archive is at, and the one this memvoy brings it to. */
  schemaVersion(): Promise<{ version: number; known: number }>;
  /** Run the missing migrations; returns the version reached. */
  migrate(): Promise<number>;
  /**
   * A short text that changes when sessions, messages, tiers, summaries or error records change (on any
   * host). Cheap enough to poll every second.
   */
  changeStamp(): Promise<string>;
}
