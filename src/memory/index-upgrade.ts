// The keyword index upgrade (a session token per row, src/storage/sqlite/fts-upgrade.ts) as the daemon and
// `memvoy doctor --migrate` run it: in short steps, resumable, while writes and searches go on.
import type { MemoryContext } from "./memory-context.ts";
import {
  ftsUpgradeState,
  upgradeFts,
  type FtsUpgradeOptions,
  type FtsUpgradeResult,
  type FtsUpgradeState,
} from "../storage/sqlite/fts-upgrade.ts";

export type IndexUpgradeState = FtsUpgradeState;
export type IndexUpgradeOptions = FtsUpgradeOptions;
export type IndexUpgradeResult = FtsUpgradeResult;

export function indexUpgradeState(ctx: MemoryContext): IndexUpgradeState {
  return ftsUpgradeState(ctx.db);
}

export function upgradeIndex(ctx: MemoryContext, options: IndexUpgradeOptions = {}): Promise<IndexUpgradeResult> {
  return upgradeFts(ctx.db, options);
}
