// The first k items of a list in a sort order without sorting all of it: what a stable sort then slice(0, k) gives.

/** `[...items].sort(cmp).slice(0, k)`, in one pass keeping the best k (ties keep the list's order). */
export function firstInOrder<T>(items: readonly T[], k: number, cmp: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  if (items.length <= k * 4) return [...items].sort(cmp).slice(0, k);
  const top: T[] = [];
  for (const x of items) {
    // Not before the k-th: a tie comes after it too, being later in the list.
    if (top.length === k && cmp(x, top[k - 1]!) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(top[mid]!, x) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, x);
    if (top.length > k) top.pop();
  }
  return top;
}
