// Row addresses grouped by the fragment holding them, for deletions that rewrite the rest of each fragment first.

/** A row address is its fragment's id above the row's offset in it. */
const FRAGMENT_SHIFT = 32n;

/** Adds each row's address to the list of its fragment. */
export function groupByFragment(into: Map<bigint, bigint[]>, rows: readonly { _rowaddr: bigint | number }[]): void {
  for (const r of rows) {
    const address = BigInt(r._rowaddr);
    const f = address >> FRAGMENT_SHIFT;
    const list = into.get(f) ?? [];
    list.push(address);
    into.set(f, list);
  }
}

/** A filter for the rows of fragment `f` other than `removed`. */
export function othersOfFragment(f: bigint, removed: readonly bigint[]): string {
  return `_rowaddr >= ${f << FRAGMENT_SHIFT} AND _rowaddr < ${(f + 1n) << FRAGMENT_SHIFT} AND _rowaddr NOT IN (${removed.join(", ")})`;
}
