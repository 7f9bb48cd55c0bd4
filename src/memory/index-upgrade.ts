// The search index upgrades as the daemon and `memvoy doctor --migrate` run them, in short steps, resumable,
// while writes and searches go on: the keyword index's session token per row (src/storage/sqlite/fts-upgrade.ts),
// then the substring index's build (src/storage/sqlite/substring-index-build.ts). Progress counts both.
import type { MemoryContext } from "./memory-context.ts";
import {
  ftsUpgradeState,
  upgradeFts,
  type FtsUpgradeOptions,
  type FtsUpgradeResult,
  type FtsUpgradeState,
} from "../storage/sqlite/fts-upgrade.ts";
import { buildTrigram, trigramBuildState } from "../storage/sqlite/substring-index-build.ts";

export type IndexUpgradeState = FtsUpgradeState;
export type IndexUpgradeOptions = FtsUpgradeOptions;
export type IndexUpgradeResult = FtsUpgradeResult;

export function indexUpgradeState(ctx: MemoryContext): IndexUpgradeState {
  const fts = ftsUpgradeState(ctx.db);
  const tri = trigramBuildState(ctx.db);
  return { done: fts.done && tri.done, copied: fts.copied + tri.copied, total: fts.total + tri.total };
}

export async function upgradeIndex(ctx: MemoryContext, options: IndexUpgradeOptions = {}): Promise<IndexUpgradeResult> {
  const ftsTotal = ftsUpgradeState(ctx.db).total;
  const triTotal = trigramBuildState(ctx.db).total;
  const fts = await upgradeFts(ctx.db, {
    ...options,
    progress: (done, total) => options.progress?.(done, total + triTotal),
  });
  if (!fts.done) return fts;
  const tri = await buildTrigram(ctx.db, {
    ...options,
    progress: (done, total) => options.progress?.(ftsTotal + done, ftsTotal + total),
  });
  return {
    done: tri.done,
    copied: fts.copied + tri.copied,
    longestStepMs: Math.max(fts.longestStepMs, tri.longestStepMs),
    ms: fts.ms + tri.ms,
  };
}
