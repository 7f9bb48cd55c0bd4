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
 * `list` with each archived hit holding all the query's terms (`whole`) moved up to just above the first hit ranked
 * before it that holds not all of them and is not `strong`ly close in meaning (a neighbour found through context, a
 * partial match); every other hit keeps its place. An archived message is found by its words alone (no vector, no
 * neighbour's share), so it stands in one of the fused lists where a recent one stands in two or three.
 */
export function archivedWholeAboveWeak<T extends { item: { message: { id: string; recent: boolean } } }>(
  list: readonly T[],
  whole: (id: string) => boolean,
  strong: (id: string) => boolean,
): T[] {
  const lift = (f: T) => !f.item.message.recent && whole(f.item.message.id);
  const lifted = list.filter(lift);
  if (lifted.length === 0) return [...list];
  const out: T[] = [];
  for (const f of list) {
    if (lift(f)) {
      if (lifted[0] === f) out.push(lifted.shift()!);
      continue;
    }
    if (!whole(f.item.message.id) && !strong(f.item.message.id)) out.push(...lifted.splice(0));
    out.push(f);
  }
  return out;
}
