// Conversation context in lexical ranking: an answer rarely repeats the words of the question it answers,
// so a recent message also earns a share of the lexical score of the message before it in its session
// (the question) and of the one after it (the reply), as its stored vector carries its predecessor's.
import type { StoredMessage } from "../shared/message.ts";
import { passesFilter, type MessageFilter } from "../shared/time-filter.ts";
import { recentNeighbourSeqs, recentNeighboursOf } from "../storage/sqlite/context-queries.ts";
import type { Db } from "../storage/sqlite/db.ts";
import { firstInOrder } from "./first-in-order.ts";

/**
 * Shares of a neighbour's lexical score a message earns (chosen on LoCoMo dev, bench/locomo.ts); `lift`:
 * how many of keyword mode's best messages lend theirs.
 */
export const CONTEXT = { prev: 0.5, next: 0.2, lift: 20 };

export interface Scored {
  message: StoredMessage;
  score: number;
}

export interface InContext extends Scored {
  /** The neighbours that lent this message part of their score. */
  from: StoredMessage[];
}

/**
 * Each message's score plus its neighbours' shares (theirs from `scored`, 0 for others), for the scored
 * messages and their neighbours in scope; unordered.
 */
export function withContext(db: Db, scored: readonly Scored[], scope: MessageFilter): InContext[] {
  return inContext(
    scored,
    scope,
    recentNeighboursOf(
      db,
      scored.map((s) => s.message.seq),
    ),
  );
}

/** withContext with each scored message's recent neighbours given (`near`): another archive than SQLite reads them. */
export function inContext(
  scored: readonly Scored[],
  scope: MessageFilter,
  near: ReadonlyMap<bigint, { prev?: StoredMessage; next?: StoredMessage }>,
): InContext[] {
  const own = new Map(scored.map((s) => [s.message.id, s.score] as const));
  const out = new Map<string, InContext>();
  const entry = (m: StoredMessage) => {
    let e = out.get(m.id);
    if (!e) out.set(m.id, (e = { message: m, score: own.get(m.id) ?? 0, from: [] }));
    return e;
  };
  const lend = (to: StoredMessage | undefined, from: Scored, share: number) => {
    if (!to || !passesFilter(to, scope)) return;
    const e = entry(to);
    e.score += share * from.score;
    e.from.push(from.message);
  };
  for (const s of scored) {
    entry(s.message);
    const n = near.get(s.message.seq);
    // The message after this one answers it; the one before asked what this one answers.
    lend(n?.next, s, CONTEXT.prev);
    lend(n?.prev, s, CONTEXT.next);
  }
  return [...out.values()];
}

type Lifted = { r: { seq: bigint }; s: number };
/** For each seq, the seqs of the previous and the next recent message of its session. */
export type NeighbourSeqs = ReadonlyMap<bigint, { prev?: bigint; next?: bigint }>;

/**
 * Keyword mode keeps only messages that hold a term, so there context only lifts: each of the `top` best
 * scored messages lends its shares to its neighbours when they are scored too. Scores change in place.
 */
export function liftByContext(db: Db, scored: Lifted[], top = CONTEXT.lift): void {
  const best = contextLenders(scored, top);
  if (best.length > 0)
    lendShares(
      scored,
      best,
      recentNeighbourSeqs(
        db,
        best.map((x) => x.r.seq),
      ),
    );
}

/** The scored messages that lend their shares (the `top` best), none when context weighs nothing. */
export function contextLenders<T extends Lifted>(scored: readonly T[], top = CONTEXT.lift): T[] {
  if (CONTEXT.prev === 0 && CONTEXT.next === 0) return [];
  return firstInOrder(scored, top, (a, b) => b.s - a.s);
}

/** liftByContext's lending, the neighbours of `best` given (`near`): another archive than SQLite looks them up. */
export function lendShares(scored: Lifted[], best: readonly Lifted[], near: NeighbourSeqs): void {
  // What each neighbour earns, scored or not; only the scored ones are found below.
  const gain = new Map<bigint, number>();
  const lend = (to: bigint | undefined, s: number) => {
    if (to !== undefined) gain.set(to, (gain.get(to) ?? 0) + s);
  };
  for (const x of best) {
    const n = near.get(x.r.seq);
    lend(n?.next, CONTEXT.prev * x.s);
    lend(n?.prev, CONTEXT.next * x.s);
  }
  if (gain.size === 0) return;
  for (const x of scored) {
    const g = gain.get(x.r.seq);
    if (g !== undefined) x.s += g;
  }
}
