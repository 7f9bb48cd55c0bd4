// The search index upgrades as the daemon and `memvoy doctor --migrate` run them, in short steps, resumable,
// while writes and searches go on: the keyword index's session token per row (src/storage/sqlite/fts-upgrade.ts),
// then the substring index's build (src/storage/sqlite/substring-index-build.ts) and its split by tier
// (src/storage/sqlite/substring-index-split.ts), then each row's length in index tokens
// (src/storage/sqlite/index-tokens-build.ts), then the starts of long messages
// (src/storage/sqlite/message-starts-build.ts). Progress counts all five.
import type { MemoryContext } from "./memory-context.ts";
import {
  ftsUpgradeState,
  upgradeFts,
  type FtsUpgradeOptions,
  type FtsUpgradeResult,
  type FtsUpgradeState,
} from "../storage/sqlite/fts-upgrade.ts";
import { buildTrigram, trigramBuildState } from "../storage/sqlite/substring-index-build.ts";
import { splitTrigram, trigramSplitState } from "../storage/sqlite/substring-index-split.ts";
import { buildTokenCounts, tokenBuildState } from "../storage/sqlite/index-tokens-build.ts";
import { buildMessageStarts, startsBuildState } from "../storage/sqlite/message-starts-build.ts";

/** The upgrade's steps together: `copied` of `total` (each step goes over every message), and the messages. */
export interface IndexUpgradeState extends FtsUpgradeState {
  messages: number;
}
export type IndexUpgradeOptions = FtsUpgradeOptions;
export type IndexUpgradeResult = FtsUpgradeResult;

export function indexUpgradeState(ctx: MemoryContext): IndexUpgradeState {
  const fts = ftsUpgradeState(ctx.db);
  const tri = trigramBuildState(ctx.db);
  const split = trigramSplitState(ctx.db);
  const tok = tokenBuildState(ctx.db);
  const starts = startsBuildState(ctx.db);
  return {
    done: fts.done && tri.done && split.done && tok.done && starts.done,
    copied: fts.copied + tri.copied + split.copied + tok.copied + starts.copied,
    total: fts.total + tri.total + split.total + tok.total + starts.total,
    messages: fts.total,
  };
}

export async function upgradeIndex(ctx: MemoryContext, options: IndexUpgradeOptions = {}): Promise<IndexUpgradeResult> {
  const ftsTotal = ftsUpgradeState(ctx.db).total;
  const triTotal = trigramBuildState(ctx.db).total;
  const splitTotal = trigramSplitState(ctx.db).total;
  const tokTotal = tokenBuildState(ctx.db).total;
  const startsTotal = startsBuildState(ctx.db).total;
  const fts = await upgradeFts(ctx.db, {
    ...options,
    progress: (done, total) => options.progress?.(done, total + triTotal + splitTotal + tokTotal + startsTotal),
  });
  if (!fts.done) return fts;
  const tri = await buildTrigram(ctx.db, {
    ...options,
    progress: (done, total) =>
      options.progress?.(ftsTotal + done, ftsTotal + total + splitTotal + tokTotal + startsTotal),
  });
  // Each step goes over the messages: the upgrade's count is the most messages one step went through.
  const sum = (a: IndexUpgradeResult, b: IndexUpgradeResult): IndexUpgradeResult => ({
    done: b.done,
    copied: Math.max(a.copied, b.copied),
    longestStepMs: Math.max(a.longestStepMs, b.longestStepMs),
    ms: a.ms + b.ms,
  });
  if (!tri.done) return sum(fts, tri);
  const split = await splitTrigram(ctx.db, {
    ...options,
    progress: (done, total) =>
      options.progress?.(ftsTotal + triTotal + done, ftsTotal + triTotal + total + tokTotal + startsTotal),
  });
  if (!split.done) return sum(sum(fts, tri), split);
  const before = ftsTotal + triTotal + splitTotal;
  const tok = await buildTokenCounts(ctx.db, {
    ...options,
    progress: (done, total) => options.progress?.(before + done, before + total + startsTotal),
  });
  if (!tok.done) return sum(sum(sum(fts, tri), split), tok);
  const last = before + tokTotal;
  const starts = await buildMessageStarts(ctx.db, {
    ...options,
    progress: (done, total) => options.progress?.(last + done, last + total),
  });
  return sum(sum(sum(sum(fts, tri), split), tok), starts);
}
