// Reciprocal rank fusion: each list adds weight / (k + rank) to its items; the union is ranked by the sum.

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
