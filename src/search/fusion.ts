// Reciprocal rank fusion: each list adds weight / (k + rank) to its items; the union is ranked by the sum. And the
// order hybrid search keeps after it: a hit holding every query term above weak semantic-only hits.

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
