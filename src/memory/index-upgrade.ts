// The search index upgrades as the daemon and `memvoy doctor --migrate` run them, in short steps, resumable,
// while writes and searches go on: the keyword index's session token per row (src/storage/sqlite/fts-upgrade.ts),
// then the substring index's build (src/storage/sqlite/substring-index-build.ts) and its split by tier
// (src/storage/sqlite/substring-index-split.ts), then each row's length in index tokens
// (src/storage/sqlite/index-tokens-build.ts), then the starts of long messages
// (src/storage/sqlite/message-starts-build.ts), then the scan for İ and the Kelvin sign
// (src/storage/sqlite/folded-letters-build.ts). Progress counts all six.
import type { Db } from "../storage/sqlite/db.ts";
import type { MemoryContext } from "./memory-context.ts";
import { homeLockFree } from "./home-lock.ts";
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
import { foldedScanState, scanFoldedLetters } from "../storage/sqlite/folded-letters-build.ts";

/** The upgrade's steps together: `copied` of `total` (each step goes over every message), and the messages. */
export interface IndexUpgradeState extends FtsUpgradeState {
  messages: number;
}
export type IndexUpgradeOptions = FtsUpgradeOptions;
export type IndexUpgradeResult = FtsUpgradeResult;

interface UpgradeStep {
  state: (db: Db) => FtsUpgradeState;
  run: (db: Db, options: IndexUpgradeOptions) => Promise<IndexUpgradeResult>;
}

/** In the order they run: each starts once the one before is done. */
const STEPS: readonly UpgradeStep[] = [
  { state: ftsUpgradeState, run: upgradeFts },
  { state: trigramBuildState, run: buildTrigram },
  { state: trigramSplitState, run: splitTrigram },
  { state: tokenBuildState, run: buildTokenCounts },
  { state: startsBuildState, run: buildMessageStarts },
  { state: foldedScanState, run: scanFoldedLetters },
];

export function indexUpgradeState(ctx: MemoryContext): IndexUpgradeState {
  const states = STEPS.map((s) => s.state(ctx.db));
  return {
    done: states.every((s) => s.done),
    copied: states.reduce((n, s) => n + s.copied, 0),
    total: states.reduce((n, s) => n + s.total, 0),
    messages: states[0]!.total,
  };
}

export async function upgradeIndex(ctx: MemoryContext, options: IndexUpgradeOptions = {}): Promise<IndexUpgradeResult> {
  const states = STEPS.map((s) => s.state(ctx.db));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  // Each step goes over the messages: the upgrade's count is the most messages one step went through.
  let result: IndexUpgradeResult = { done: true, copied: 0, longestStepMs: 0, ms: 0 };
  for (const [i, step] of STEPS.entries()) {
    const before = sum(states.slice(0, i).map((s) => s.total));
    // A later step may be done already (or part done): its share counts as done, as indexUpgradeState counts it.
    const later = states.slice(i + 1);
    const laterDone = sum(later.map((s) => s.copied));
    const laterTotal = sum(later.map((s) => s.total));
    const r = await step.run(ctx.db, {
      waitForWriters: () => homeLockFree(ctx),
      ...options,
      progress: (done, total) => options.progress?.(before + done + laterDone, before + total + laterTotal),
    });
    result = {
      done: r.done,
      copied: Math.max(result.copied, r.copied),
      longestStepMs: Math.max(result.longestStepMs, r.longestStepMs),
      ms: result.ms + r.ms,
    };
    if (!r.done) return result;
  }
  return result;
}
