// Reciprocal rank fusion: each list adds weight / (k + rank) to its items; the union is ranked by the sum. And the
// order hybrid search keeps after it: a hit holding every query term above weak semantic-only hits, and an archived
// one above every weak hit that does not hold them all.

export interface RankedList<T> {
  items: readonly T[];
  weight: number;
}

export function reciprocalRankFusion<T>(
  lists: readonly RankedList<T>[],
  key: (item: T) => string,
  k: number,
): { item: T; score: number }[] {
  const acc = new Map<string, { item: T; score: number }>();
  for (const list of lists) {
    list.items.forEach((item, r) => {
      const id = key(item);
      const add = list.weight / (k + r + 1);
      const cur = acc.get(id);
      if (cur) cur.score += add;
      else acc.set(id, { item, score: add });
    });
  }
  return [...acc.values()].sort((a, b) => b.score - a.score);
}

/** `list` with every hit holding all the query's terms (`whole`) above the weak ones (`weak`), which go last. */
export function wholeBeforeWeak<T extends { item: { message: { id: string } } }>(
  list: readonly T[],
  weak: (id: string) => boolean,
  whole: (id: string) => boolean,
): T[] {
  const id = (f: T) => f.item.message.id;
  if (!list.some((f) => whole(id(f)))) return [...list];
  const last = (f: T) => weak(id(f)) && !whole(id(f));
  return [...list.filter((f) => !last(f)), ...list.filter(last)];
}

/**
 * `list` with each item `lift` picks moved up to just above the first `weak` item ranked before it; every other item
 * keeps its place. Search keeps an archived message holding every query term (`lift`) above a hit that does not
 * hold them all (`weak`: a neighbour found through context, a partial match): an archived message is found by its
 * words alone (no vector, no neighbour's share), so it stands in fewer of the ranked lists than a recent one.
 */
export function liftAboveWeak<T>(list: readonly T[], lift: (x: T) => boolean, weak: (x: T) => boolean): T[] {
  const lifted = list.filter(lift);
  if (lifted.length === 0) return [...list];
  const out: T[] = [];
  for (const x of list) {
    if (lift(x)) {
      if (lifted[0] === x) out.push(lifted.shift()!);
      continue;
    }
    if (weak(x)) out.push(...lifted.splice(0));
    out.push(x);
  }
  return out;
}

/**
 * Hybrid search's order after fusion (`fused`, best first): hits holding every query term (`cov` 1) above the weak
 * hits only the semantic side found (`semanticOnly`, not strongly close: `sem` under `strong`), and an archived one
 * holding them all above every recent hit that does not and is not strongly close.
 */
export function hybridOrder<T extends { item: { message: { id: string; recent: boolean } } }>(
  fused: readonly T[],
  relevance: ReadonlyMap<string, { sem: number; cov: number }>,
  semanticOnly: (id: string) => boolean,
  strong: number,
): T[] {
  const isStrong = (id: string) => relevance.get(id)!.sem >= strong;
  const whole = (id: string) => relevance.get(id)!.cov >= 1;
  const id = (f: T) => f.item.message.id;
  return liftAboveWeak(
    wholeBeforeWeak(fused, (x) => semanticOnly(x) && !isStrong(x), whole),
    (f) => !f.item.message.recent && whole(id(f)),
    (f) => !whole(id(f)) && !isStrong(id(f)),
  );
}
