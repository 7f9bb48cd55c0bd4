// What a deletion command says on stderr beyond its result line.

/** The copies doctor --repair had kept aside, which a deletion removed as they held the removed text. */
export function keptCopiesNote(r: { keptCopiesRemoved?: string[] }): void {
  const copies = r.keptCopiesRemoved ?? [];
  if (copies.length === 0) return;
  const what =
    copies.length === 1
      ? "the copy doctor --repair had kept aside, as it"
      : `${copies.length} copies doctor --repair had kept aside, as they`;
  process.stderr.write(`memvoy: also removed ${what} may hold the removed text: ${copies.join(", ")}\n`);
}
